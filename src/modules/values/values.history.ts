import type { Tx } from '../../db/client.ts';
import type { ValueStatus } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, siteScope } from '../access/index.ts';
import { valueTargetsRepository } from './targets.repository.ts';
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

/** The authors of these user ids (name, e-mail, image), as an answer names them. */
export function valueAuthors(tx: Tx, ids: string[]) {
  return valueTargetsRepository.users(tx, ids);
}

/** The live values of live elements in these submissions, with their authors, in form order. */
export function liveValuesOf(tx: Tx, organizationId: string, submissionIds: string[]) {
  return repo.currentValues(tx, organizationId, submissionIds);
}

/**
 * Locks values (in id order): every writer of activities locks the value holding them first, so
 * holding it, its activities stay as read until the transaction ends.
 */
export function lockValues(tx: Tx, organizationId: string, valueIds: string[]): Promise<void> {
  return repo.lockValueIds(tx, organizationId, valueIds);
}

/** A value on a site the caller can read, or 404 (records outside the scope are not revealed). */
export async function visibleValue(tx: Tx, caller: Caller, id: string, forUpdate: boolean) {
  const row = isUuid(id) ? await repo.findValue(tx, caller.organizationId, id, forUpdate) : undefined;
  if (!row || !policy.canReadSite(await siteScope(tx, caller), row.site_id)) throw notFound('Value');
  return row;
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
