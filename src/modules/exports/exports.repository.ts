import type { Tx } from '../../db/client.ts';

/** The media of an audit pack's evidence (`ids`), by id, in the caller's organization. */
export function evidenceMedia(tx: Tx, organizationId: string, ids: readonly string[]) {
  return tx
    .selectFrom('media')
    .select(['id', 'key', 'file_name'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .orderBy('id')
    .execute();
}
