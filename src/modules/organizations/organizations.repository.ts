import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { ValueStatus } from '../../db/schema/index.ts';

const COLUMNS = ['id', 'name', 'default_statuses', 'created_at', 'updated_at'] as const;

/** The organization row of a tenant; every method takes the organization id. */
export const organizationsRepository = {
  /** A new organization (system transaction: there is no tenant yet). */
  insert(tx: Tx, name: string) {
    return tx.insertInto('organizations').values({ name }).returningAll().executeTakeFirstOrThrow();
  },

  async addOwner(tx: Tx, organizationId: string, userId: string): Promise<void> {
    await tx
      .insertInto('memberships')
      .values({ organization_id: organizationId, user_id: userId, role: 'OWNER' })
      .execute();
  },

  /** Organizations in the whole database (start-up asks whether it is empty). */
  async count(tx: Tx): Promise<number> {
    const row = await sql<{ n: number }>`select count(*)::int as n from organizations`.execute(tx);
    return row.rows[0]?.n ?? 0;
  },

  get(tx: Tx, organizationId: string) {
    return tx.selectFrom('organizations').select(COLUMNS).where('id', '=', organizationId).executeTakeFirst();
  },

  update(tx: Tx, organizationId: string, changes: { name?: string; defaultStatuses?: ValueStatus[] }) {
    return tx
      .updateTable('organizations')
      .set({
        ...(changes.name === undefined ? {} : { name: changes.name }),
        ...(changes.defaultStatuses === undefined
          ? {}
          : { default_statuses: sql<ValueStatus[]>`${changes.defaultStatuses}::text[]` }),
        updated_at: sql`now()`,
      })
      .where('id', '=', organizationId)
      .returning(COLUMNS)
      .executeTakeFirst();
  },
};
