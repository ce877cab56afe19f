import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, invalidField, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { pageOf, paginationOf } from '../../http/paging.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy } from '../access/access.policy.ts';
import { siteScope } from '../access/site-scope.ts';
import { planActivities } from '../activities/activities.submit.ts';
import { assertUnlocked } from '../form-locks/form-locks.guard.ts';
import { formsRepository } from '../forms/forms.repository.ts';
import { loadUnits } from '../units/units.repository.ts';
import { presentValue, snapshotOf } from './submissions.history.ts';
import { submissionsRepository as repo } from './submissions.repository.ts';
import { assertNoIssues, resolveElements, resolveForm, resolveSite } from './submissions.resolve.ts';
import type { Submission, SubmissionsQuery, SubmitBody, ValueItem } from './submissions.schemas.ts';
import { checkValues, type PlannedValue, slotOf } from './submissions.values.ts';
import { type HistoryWrite, type ValueWrite, valuesRepository } from './values.repository.ts';

type StoredValue = Awaited<ReturnType<typeof valuesRepository.lockValues>>[number];
type Users = Map<string, { name: string; email: string; image: string | null }>;

/** The caller and the other authors of `ids` (queried only when there are others). */
async function usersById(tx: Tx, caller: Caller, ids: Iterable<string>): Promise<Users> {
  const others = [...new Set(ids)].filter((id) => id !== caller.userId);
  const rows = await repo.users(tx, others);
  const users: Users = new Map(rows.map((u) => [u.id, u]));
  return users.set(caller.userId, { name: caller.name, email: caller.email, image: caller.image });
}

/**
 * Creates or updates the one submission of (form, site, year) and writes its values, all
 * in the caller's transaction: one invalid value and nothing is written. Values are matched
 * to stored ones by (element, periodUnit), or (element, timestamp) for TIMESTAMP elements;
 * `value: null` deletes. Every change appends to the value's history.
 */
export async function submit(tx: Tx, caller: Caller, body: SubmitBody): Promise<Submission> {
  const org = caller.organizationId;
  const form = await resolveForm(tx, org, body);
  const siteId = await resolveSite(tx, org, body);
  const scope = await siteScope(tx, caller);
  authorize(policy.canWriteSiteData(caller, scope, siteId), 'You cannot enter data for this site');
  const formSite = await repo.activeFormSite(tx, org, form.id, siteId, body.year);
  if (!formSite) throw invalidField('year', `The form is not active on this site for ${body.year}`);

  const elements = await formsRepository.elements(tx, org, [form.id]);
  const { resolved, issues } = resolveElements(body.values, elements);
  const units = await loadUnits(tx, org, [
    ...elements.flatMap((e) => (e.unit_id ? [e.unit_id] : [])),
    ...body.values.flatMap((v) => (v.selectedUnitId ? [v.selectedUnitId] : [])),
  ]);
  const checked = checkValues(body.values, resolved, {
    year: body.year,
    periodType: form.period_type,
    units,
  });
  const activities = await planActivities(tx, org, checked.planned);
  assertNoIssues(
    [...issues, ...checked.issues, ...activities.issues].sort((a, b) => byIndex(a.path) - byIndex(b.path)),
  );
  await activities.calculate(tx, org, { siteId, year: body.year });

  const submission = await repo.upsertSubmission(tx, org, formSite.id, caller.userId);
  const stored = await valuesRepository.lockValues(tx, org, submission.id, [
    ...new Set(checked.planned.map((p) => p.element.id)),
  ]);
  await assertUnlocked(
    tx,
    org,
    changingSlots(checked.planned, stored, { formId: form.id, siteId, year: body.year }),
  );
  const items = await applyValues(tx, caller, submission.id, checked.planned, stored);
  await activities.save(tx, caller, { formSiteId: formSite.id, siteId, year: body.year }, items);
  return {
    id: submission.id,
    organizationId: org,
    formSiteId: formSite.id,
    formId: form.id,
    siteId,
    year: body.year,
    userId: submission.user_id,
    createdAt: iso(submission.created_at),
    updatedAt: iso(submission.updated_at),
    deletedAt: null,
    // A deletion that found no live value changed nothing and has no record to show.
    values: items.filter((item) => item !== undefined),
  };
}

const byIndex = (path: string | undefined) => Number(/^values\.(\d+)/.exec(path ?? '')?.[1] ?? -1);

/**
 * Writes the planned values against the stored (locked) ones; returns them in request order,
 * undefined for a deletion that found no live value (nothing changed, no record to show).
 */
async function applyValues(
  tx: Tx,
  caller: Caller,
  submissionId: string,
  planned: PlannedValue[],
  stored: StoredValue[],
): Promise<(ValueItem | undefined)[]> {
  const org = caller.organizationId;
  const bySlot = new Map(stored.map((s) => [slotOf(s.element_id, s.period_unit, s.timestamp), s]));
  const writes: ValueWrite[] = [];
  const deletes: string[] = [];
  const history: HistoryWrite[] = [];
  // Per planned value: the stored row it ends as (undefined: nothing live, nothing to show).
  const outcome: (StoredValue | ValueWrite | undefined)[] = [];

  for (const plan of planned) {
    const existing = bySlot.get(slotOf(plan.element.id, plan.periodUnit, plan.timestamp));
    const live = existing && !existing.deleted_at ? existing : undefined;
    if (!plan.checked) {
      if (live) {
        deletes.push(live.id);
        history.push({ valueId: live.id, action: 'DELETE', before: snapshotOf(live), after: null });
      }
      outcome.push(live);
      continue;
    }
    const write: ValueWrite = {
      id: existing?.id ?? randomUUID(),
      elementId: plan.element.id,
      periodUnit: plan.periodUnit,
      timestamp: plan.timestamp,
      value: plan.checked.value,
      originalValue: plan.checked.originalValue,
      numericValue: plan.checked.numericValue,
      selectedUnitId: plan.selectedUnitId,
    };
    if (live && unchanged(live, write)) {
      outcome.push(live);
      continue;
    }
    writes.push(write);
    const after = {
      value: write.value,
      originalValue: write.originalValue,
      selectedUnitId: write.selectedUnitId,
      status: 'COMPLETED',
    };
    history.push(
      live
        ? { valueId: write.id, action: 'UPDATE', before: snapshotOf(live), after }
        : { valueId: write.id, action: 'CREATE', before: null, after },
    );
    outcome.push(write);
  }

  const written = new Map(
    (await valuesRepository.writeValues(tx, org, submissionId, caller.userId, writes)).map((w) => [
      w.id,
      w.recorded_at,
    ]),
  );
  const deleted = new Map(
    (await valuesRepository.softDeleteValues(tx, org, caller.userId, deletes)).map((d) => [
      d.id,
      d.deleted_at,
    ]),
  );
  await valuesRepository.insertHistory(tx, org, caller.userId, history);

  const users = await usersById(
    tx,
    caller,
    stored.map((s) => s.user_id),
  );
  return planned.map((plan, i) => {
    const row = outcome[i];
    const key = plan.element.key;
    if (!row) return undefined;
    if (!('form_submission_id' in row)) {
      // Written by this request.
      const recordedAt = written.get(row.id)!;
      return presentValue(
        {
          id: row.id,
          element_id: row.elementId,
          period_unit: row.periodUnit,
          timestamp: row.timestamp,
          value: row.value,
          original_value: row.originalValue,
          selected_unit_id: row.selectedUnitId,
          status: 'COMPLETED',
          user_id: caller.userId,
          recorded_at: recordedAt,
          deleted_at: null,
        },
        key,
        users.get(caller.userId)!,
      );
    }
    const deletedAt = deleted.get(row.id);
    const userId = deletedAt ? caller.userId : row.user_id;
    return presentValue(
      { ...row, user_id: userId, deleted_at: deletedAt ?? row.deleted_at },
      key,
      users.get(userId)!,
    );
  });
}

/**
 * The (form, site, year, period) slots the planned values would change, for the lock guard: new,
 * changed and deleted values, and every ACTIVITY list (entering it calculates its activities).
 */
function changingSlots(
  planned: PlannedValue[],
  stored: StoredValue[],
  target: { formId: string; siteId: string; year: number },
) {
  const bySlot = new Map(stored.map((s) => [slotOf(s.element_id, s.period_unit, s.timestamp), s]));
  return planned.flatMap((plan) => {
    const existing = bySlot.get(slotOf(plan.element.id, plan.periodUnit, plan.timestamp));
    const live = existing && !existing.deleted_at ? existing : undefined;
    const changes = plan.checked
      ? plan.element.type === 'ACTIVITY' ||
        !live ||
        !unchanged(live, {
          value: plan.checked.value,
          originalValue: plan.checked.originalValue,
          selectedUnitId: plan.selectedUnitId,
        } as ValueWrite)
      : live !== undefined;
    if (!changes) return [];
    return [{ ...target, period: plan.periodUnit, path: `values.${plan.index}`, label: plan.element.key }];
  });
}

function unchanged(live: StoredValue, write: ValueWrite): boolean {
  return (
    isDeepStrictEqual(live.value, write.value) &&
    isDeepStrictEqual(live.original_value ?? null, write.originalValue) &&
    live.selected_unit_id === write.selectedUnitId
  );
}

type SubmissionRow = NonNullable<Awaited<ReturnType<typeof repo.findSubmission>>>;

/** Submissions with all their current values (one query for the values of all of them). */
async function withValues(tx: Tx, organizationId: string, rows: SubmissionRow[]): Promise<Submission[]> {
  const values = await valuesRepository.currentValues(
    tx,
    organizationId,
    rows.map((r) => r.id),
  );
  const bySubmission = new Map<string, ValueItem[]>();
  for (const v of values) {
    const item = presentValue(v, v.element_key, {
      name: v.user_name,
      email: v.user_email,
      image: v.user_image,
    });
    const list = bySubmission.get(v.form_submission_id);
    if (list) list.push(item);
    else bySubmission.set(v.form_submission_id, [item]);
  }
  return rows.map((r) => ({
    id: r.id,
    organizationId: r.organization_id,
    formSiteId: r.form_site_id,
    formId: r.form_id,
    siteId: r.site_id,
    year: r.year,
    userId: r.user_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    deletedAt: null,
    values: bySubmission.get(r.id) ?? [],
  }));
}

/** A submission of an active form-site on a site the caller can read. */
export async function getSubmission(tx: Tx, caller: Caller, id: string): Promise<Submission> {
  const row = isUuid(id) ? await repo.findSubmission(tx, caller.organizationId, id) : undefined;
  if (!row || !policy.canReadSite(await siteScope(tx, caller), row.site_id)) throw notFound('Submission');
  const [submission] = await withValues(tx, caller.organizationId, [row]);
  return submission!;
}

/** A page of visible submissions on the sites the caller can read. */
export async function listSubmissions(tx: Tx, caller: Caller, query: SubmissionsQuery) {
  const org = caller.organizationId;
  if (query.formId && !(await formsRepository.find(tx, org, query.formId))) {
    throw invalidField('formId', 'formId is not a form of this organization');
  }
  if (query.siteId && !(await repo.siteExists(tx, org, query.siteId))) {
    throw invalidField('siteId', 'siteId is not a site of this organization');
  }
  const scope = await siteScope(tx, caller);
  const page = pageOf(query);
  const { total, rows } = await repo.listSubmissions(tx, org, scope, query, page);
  return {
    items: await withValues(tx, org, rows),
    pagination: paginationOf(page, rows.length, total),
  };
}
