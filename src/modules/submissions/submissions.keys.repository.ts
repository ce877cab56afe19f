import { sql } from 'kysely';
import { json, type Tx } from '../../db/client.ts';

/** A stored key of POST /form-submissions: the body's hash and the answer it was given. */
export interface StoredKey {
  fingerprint: string;
  status: number | null;
  response: unknown;
}

/** The Idempotency-Keys of POST /form-submissions (decision 194). */
export const submissionKeysRepository = {
  /**
   * Claims the key for this transaction: true when it was free. A concurrent claim of the same
   * key waits on the primary key until the first transaction ends, then finds its row (committed)
   * or claims it (rolled back).
   */
  async claim(tx: Tx, organizationId: string, userId: string, key: string, fingerprint: string) {
    const row = await tx
      .insertInto('form_submission_keys')
      .values({
        organization_id: organizationId,
        user_id: userId,
        key,
        fingerprint,
        status: null,
        response: null,
      })
      .onConflict((oc) => oc.columns(['organization_id', 'user_id', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    return row !== undefined;
  },

  find(tx: Tx, organizationId: string, userId: string, key: string): Promise<StoredKey | undefined> {
    return tx
      .selectFrom('form_submission_keys')
      .select(['fingerprint', 'status', 'response'])
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .executeTakeFirst();
  },

  /** Stores the answer of the claimed key (in the claiming transaction). */
  async answer(
    tx: Tx,
    organizationId: string,
    userId: string,
    key: string,
    status: number,
    response: unknown,
  ) {
    await tx
      .updateTable('form_submission_keys')
      .set({ status, response: json(response) })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .execute();
  },

  /** Removes the keys of every organization created before `before` (a system transaction). */
  async removeOlderThan(tx: Tx, before: Date): Promise<number> {
    const result = await sql`delete from form_submission_keys where created_at < ${before}`.execute(tx);
    return Number(result.numAffectedRows ?? 0);
  },
};
