import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, notFound } from '../../domain/errors.ts';
import { policy, siteScope } from '../access/index.ts';
import {
  presentValue,
  snapshotOf,
  type ValueItem,
  valueAuthors,
  visibleValue,
  writeReviews,
} from '../values/index.ts';
import type { ReviewBody } from './submissions.schemas.ts';

/**
 * Approves or rejects a live value (MANAGER+ managing its site) and records the review,
 * with its comment, in the value's history.
 */
export async function reviewValue(tx: Tx, caller: Caller, id: string, body: ReviewBody): Promise<ValueItem> {
  const row = await visibleValue(tx, caller, id, true);
  if (row.deleted_at || row.element_deleted_at) throw notFound('Value');
  const scope = await siteScope(tx, caller);
  authorize(policy.canManageSite(caller, scope, row.site_id), 'Reviewing needs manager rights on the site');

  await writeReviews(tx, caller, [{ id, before: snapshotOf(row) }], body.status, body.comment ?? null);
  const [author] = await valueAuthors(tx, [row.user_id]);
  return presentValue({ ...row, status: body.status }, row.element_key, author!);
}
