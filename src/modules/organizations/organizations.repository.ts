import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { ValueStatus } from '../../db/schema/index.ts';

const COLUMNS = ['id', 'name', 'default_statuses', 'created_at', 'updated_at'] as const;

/** The organization row of a tenant; every method takes the organization id. */
export const organizationsRepository = {
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
