import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { PeriodType } from '../../db/schema/index.ts';
import { badRequest } from '../../domain/errors.ts';
import { periodLabel } from '../completeness/completeness.periods.ts';

/** One (form, site, year, period) a write would change; `path`/`label` name it in the refusal. */
export interface LockSlot {
  formId: string;
  siteId: string;
  year: number;
  period: number;
  /** The request field or row the slot comes from, e.g. `values.3`. */
  path?: string;
  /** What is written, e.g. an element key. */
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

/** The slots among `slots` that a live lock covers, with the (first) lock of each; one query. */
export async function lockedSlots(
  tx: Tx,
  organizationId: string,
  slots: readonly LockSlot[],
): Promise<SlotLock[]> {
  if (slots.length === 0) return [];
  const result = await sql<{
    idx: string;
    id: string;
    period_unit: number | null;
    site_id: string | null;
    created_at: Date;
    user_name: string;
    form_name: string;
    period_type: PeriodType;
    site_name: string | null;
  }>`
    select distinct on (s.idx) s.idx, l.id, l.period_unit, l.site_id, l.created_at,
           coalesce(nullif(u.name, ''), u.email) as user_name, f.name as form_name, f.period_type,
           st.name as site_name
      from unnest(${slots.map((s) => s.formId)}::uuid[], ${slots.map((s) => s.siteId)}::uuid[],
                  ${slots.map((s) => s.year)}::int[], ${slots.map((s) => s.period)}::int[])
           with ordinality as s(form_id, site_id, year, period, idx)
      join form_locks l
        on l.organization_id = ${organizationId} and l.form_id = s.form_id and l.year = s.year
       and l.unlocked_at is null
       and (l.period_unit is null or l.period_unit = s.period)
       and (l.site_id is null or l.site_id = s.site_id)
      join forms f on f.organization_id = l.organization_id and f.id = l.form_id
      join users u on u.id = l.created_by
      left join sites st on st.organization_id = l.organization_id and st.id = s.site_id
     order by s.idx, l.created_at, l.id`.execute(tx);
  return result.rows.map((r) => ({
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
    const what = slot.label ? `"${slot.label}" for ` : '';
    const message = `${slot.path ? `${slot.path}: ` : ''}${what}${periodLabel(slot.year, lock.periodType, slot.period)} at ${lock.siteName} in "${lock.formName}" is locked by ${describeLock(lock, slot.year)}; a manager must unlock it first`;
    return slot.path ? { path: slot.path, message } : { message };
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
  const result = await sql<{ id: string }>`
    select a.id
      from activities a
      join form_elements e on e.organization_id = a.organization_id and e.id = a.element_id
     where a.organization_id = ${organizationId} and a.id = any(${ids}::uuid[])
       and exists (
         select 1 from form_locks l
          where l.organization_id = a.organization_id and l.form_id = e.form_id and l.year = a.year
            and l.unlocked_at is null
            and (l.period_unit is null or l.period_unit = a.period_unit)
            and (l.site_id is null or l.site_id = a.site_id))`.execute(tx);
  return new Set(result.rows.map((r) => r.id));
}
