import type { Tx } from '../../db/client.ts';
import type { ValueStatus } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, siteScope } from '../access/index.ts';
import { submissionsRepository } from './submissions.repository.ts';
import type { ReviewBody, ValueItem } from './submissions.schemas.ts';
import { submissionValuesRepository as repo } from './values.repository.ts';

/** What the history keeps of a value before and after a change. */
export interface Snapshot {
  value: unknown;
  originalValue: unknown;
  selectedUnitId: string | null;
  status: ValueStatus;
}

export function snapshotOf(row: {
  value: unknown;
  original_value: unknown;
  selected_unit_id: string | null;
  status: ValueStatus;
}): Snapshot {
  return {
    value: row.value,
    originalValue: row.original_value ?? null,
    selectedUnitId: row.selected_unit_id,
    status: row.status,
  };
}

/** A value as the API shows it; the author is given separately (one users query per request). */
export function presentValue(
  row: {
    id: string;
    element_id: string;
    period_unit: number;
    timestamp: Date | null;
    value: unknown;
    original_value: unknown;
    selected_unit_id: string | null;
    status: ValueStatus;
    user_id: string;
    recorded_at: Date;
    deleted_at: Date | null;
  },
  elementKey: string,
  user: { name: string; email: string; image: string | null },
): ValueItem {
  return {
    formElementSubmissionId: row.id,
    elementId: row.element_id,
    elementKey,
    periodUnit: row.period_unit,
    timestamp: iso(row.timestamp),
    status: row.status,
    value: row.deleted_at ? null : row.value,
    originalValue: row.deleted_at ? null : (row.original_value ?? null),
    selectedUnitId: row.deleted_at ? null : row.selected_unit_id,
    userId: row.user_id,
    userName: user.name,
    userEmail: user.email,
    userImage: user.image,
    recordedAt: iso(row.recorded_at),
    deletedAt: iso(row.deleted_at),
  };
}

/** A value on a site the caller can read, or 404 (records outside the scope are not revealed). */
async function visibleValue(tx: Tx, caller: Caller, id: string, forUpdate: boolean) {
  const row = isUuid(id) ? await repo.findValue(tx, caller.organizationId, id, forUpdate) : undefined;
  if (!row || !policy.canReadSite(await siteScope(tx, caller), row.site_id)) throw notFound('Value');
  return row;
}

/**
 * Approves or rejects a live value (MANAGER+ managing its site) and records the review,
 * with its comment, in the value's history.
 */
export async function reviewValue(tx: Tx, caller: Caller, id: string, body: ReviewBody): Promise<ValueItem> {
  const row = await visibleValue(tx, caller, id, true);
  if (row.deleted_at || row.element_deleted_at) throw notFound('Value');
  const scope = await siteScope(tx, caller);
  authorize(policy.canManageSite(caller, scope, row.site_id), 'Reviewing needs manager rights on the site');

  const before = snapshotOf(row);
  await repo.setStatus(tx, caller.organizationId, id, body.status);
  const after = { ...before, status: body.status };
  await repo.insertHistory(tx, caller.organizationId, caller.userId, [
    { valueId: id, action: 'REVIEW', before, after, comment: body.comment ?? null },
  ]);
  const [author] = await submissionsRepository.users(tx, [row.user_id]);
  return presentValue({ ...row, status: body.status }, row.element_key, author!);
}

/** Every change of a value, oldest first; also for deleted values (VIEWER+ on the site). */
export async function valueHistory(tx: Tx, caller: Caller, id: string) {
  await visibleValue(tx, caller, id, false);
  const entries = await repo.history(tx, caller.organizationId, id);
  return entries.map((h) => ({
    id: h.id,
    valueId: h.value_id,
    action: h.action,
    userId: h.user_id,
    userName: h.user_name,
    userEmail: h.user_email,
    at: iso(h.at),
    before: (h.before ?? null) as Snapshot | null,
    after: (h.after ?? null) as Snapshot | null,
    comment: h.comment,
  }));
}
