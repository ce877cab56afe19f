import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

/** API key rows of one organization; every method takes the organization id. */
export const apiKeysRepository = {
  insert(tx: Tx, organizationId: string, row: { userId: string; name: string; keyHash: string }) {
    return tx
      .insertInto('api_keys')
      .values({ organization_id: organizationId, user_id: row.userId, name: row.name, key_hash: row.keyHash })
      .returning(['id', 'name', 'created_at'])
      .executeTakeFirstOrThrow();
  },

  /**
   * Takes the organization's key-creation lock until the transaction ends and answers how many
   * live (unrevoked) keys it holds: parallel creations count one after the other (decision 155).
   */
  async lockAndCountLive(tx: Tx, organizationId: string): Promise<number> {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`sdcs-apikeys:${organizationId}`}, 0))`.execute(
      tx,
    );
    const row = await tx
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  list(tx: Tx, organizationId: string) {
    return tx
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .select([
        'k.id',
        'k.name',
        'k.key_hash',
        'k.created_at',
        'k.last_used_at',
        'u.email as owner_email',
        'k.user_id',
      ])
      .where('k.organization_id', '=', organizationId)
      .where('k.revoked_at', 'is', null)
      .orderBy('k.created_at')
      .orderBy('k.id')
      .execute();
  },

  /** Revokes a key; returns false when the organization has no such active key. */
  async revoke(tx: Tx, organizationId: string, id: string): Promise<boolean> {
    const rows = await tx
      .updateTable('api_keys')
      .set({ revoked_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returning('id')
      .execute();
    return rows.length > 0;
  },
};
