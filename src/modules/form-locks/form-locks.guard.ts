import type { Tx } from '../../db/client.ts';
import type { PeriodType } from '../../db/schema/index.ts';
import { badRequest, coded } from '../../domain/errors.ts';
import { periodLabel } from '../completeness/index.ts';
import { formLocksRepository, type LockQuery } from './form-locks.repository.ts';

/** One (form, site, year, period) a write would change; `path`/`label` name it in the refusal. */
export interface LockSlot extends LockQuery {
  period: number;
  /** The request field or row the slot comes from, e.g. `values.3`. */
  path?: string;
  /** What is written, as people call it (an element's label): the refusal is then a plain sentence. */
  label?: string;
}

export interface SlotLock {
  /** Index of the slot in the list given. */
  index: number;
  lockId: string;
  lockPeriodUnit: number | null;
  lockSiteId: string | null;
  lockedAt: Date;
  lockedBy: string;
  formName: string;
  periodType: PeriodType;
  siteName: string;
}

/**
 * The slots among `slots` that a live lock covers, with the (first) lock of each; one query.
 * A slot whose `period` is `null` is covered by any lock of its year.
 */
export async function lockedSlots(
  tx: Tx,
  organizationId: string,
  slots: readonly LockQuery[],
): Promise<SlotLock[]> {
  if (slots.length === 0) return [];
  const rows = await formLocksRepository.covering(tx, organizationId, slots);
  return rows.map((r) => ({
    index: Number(r.idx) - 1,
    lockId: r.id,
    lockPeriodUnit: r.period_unit,
    lockSiteId: r.site_id,
    lockedAt: r.created_at,
    lockedBy: r.user_name,
    formName: r.form_name,
    periodType: r.period_type,
    siteName: r.site_name ?? slots[Number(r.idx) - 1]!.siteId,
  }));
}

/** How a refusal names a lock: "lock <id> (March 2024, all sites, by Ann on 2026-11-23)". */
export function describeLock(lock: SlotLock, year: number): string {
  const period =
    lock.lockPeriodUnit === null ? `all of ${year}` : periodLabel(year, lock.periodType, lock.lockPeriodUnit);
  const sites = lock.lockSiteId === null ? 'all sites' : lock.siteName;
  return `lock ${lock.lockId} (${period}, ${sites}, by ${lock.lockedBy} on ${lock.lockedAt.toISOString().slice(0, 10)})`;
}

/**
 * The write guard: refuses (400) a write that would change a (form, site, year, period) a live
 * lock covers, with one issue per locked slot naming what is written and the lock. Call it
 * before writing, inside the write's transaction.
 */
export async function assertUnlocked(
  tx: Tx,
  organizationId: string,
  slots: readonly LockSlot[],
): Promise<void> {
  const locked = await lockedSlots(tx, organizationId, slots);
  if (locked.length === 0) return;
  const issues = locked.map((lock) => {
    const slot = slots[lock.index]!;
    const period = periodLabel(slot.year, lock.periodType, slot.period);
    // A slot named for people (a submission's value: its element's label) gets a plain sentence
    // without ids (issue 42); locks have no reason of their own yet.
    const message = slot.label
      ? `${slot.label} for ${period} is locked: closed for reporting`
      : `${slot.path ? `${slot.path}: ` : ''}${period} at ${lock.siteName} in "${lock.formName}" is locked by ${describeLock(lock, slot.year)}; a manager must unlock it first`;
    return coded(
      'period.locked',
      message,
      {
        ...(slot.label ? { label: slot.label } : {}),
        year: slot.year,
        periodType: lock.periodType,
        periodUnit: slot.period,
        site: lock.siteName,
        form: lock.formName,
        lockId: lock.lockId,
      },
      slot.path,
    );
  });
  throw badRequest('The period is locked', issues);
}

/** The activities among `ids` whose (form, site, year, period) a live lock covers; one query. */
export async function lockedActivities(
  tx: Tx,
  organizationId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  return new Set(await formLocksRepository.coveredActivities(tx, organizationId, ids));
}
