import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, conflict, type Issue, invalidField } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { policy } from '../access/access.policy.ts';
import { siteScope } from '../access/site-scope.ts';
import { formsRepository } from '../forms/forms.repository.ts';
import { loadUnits } from '../units/units.repository.ts';
import {
  type ElementTypeHandlers,
  type PlannedValue,
  runGuards,
  type SlotGuard,
  type Target,
  type TenantRun,
  type ValuesSession,
} from './element-types.ts';
import { presentValue, snapshotOf } from './submissions.history.ts';
import { submissionsRepository as repo } from './submissions.repository.ts';
import { assertNoIssues, resolveElements, resolveForm, resolveSite } from './submissions.resolve.ts';
import type { Submission, SubmitBody, ValueItem } from './submissions.schemas.ts';
import { checkValues, slotOf } from './submissions.values.ts';
import { type HistoryWrite, type ValueWrite, valuesRepository } from './values.repository.ts';

/** What the composition root (`app.ts`) gives the pipeline: a handler per type, the slot guards. */
export interface ValuesPipeline {
  handlers: ElementTypeHandlers;
  guards: readonly SlotGuard[];
}

/** How many times work done outside a transaction (calculations) is redone before a 409. */
export const MAX_ATTEMPTS = 3;

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
 * Checks and stores the values of one (form, site, year): what POST /form-submissions does and
 * what source imports call for their drafts, so that both are checked and stored by one code.
 *
 * Each attempt is one transaction (`run`): resolve and check everything, let each type's session
 * plan its values; if a session needs work outside a transaction (calculations), the transaction
 * ends, the work runs, and the next attempt checks again that what it depended on is unchanged.
 * When every session is ready, in that same transaction: the slot guards, then the writes. One
 * invalid value and nothing is written. After MAX_ATTEMPTS computations: 409.
 */
export async function storeValues(
  pipeline: ValuesPipeline,
  run: TenantRun,
  caller: Caller,
  body: SubmitBody,
  signal: AbortSignal = new AbortController().signal,
): Promise<Submission> {
  const org = caller.organizationId;
  const sessions = new Map<string, ValuesSession>();
  const sessionOf = (type: keyof ElementTypeHandlers) => {
    let session = sessions.get(type);
    const handler = pipeline.handlers[type];
    if (!session && handler.open) {
      session = handler.open({ organizationId: org, run, signal });
      sessions.set(type, session);
    }
    return session;
  };

  try {
    return await attempts(pipeline, run, caller, body, sessions, sessionOf);
  } finally {
    for (const session of sessions.values()) await session.close?.();
  }
}

async function attempts(
  pipeline: ValuesPipeline,
  run: TenantRun,
  caller: Caller,
  body: SubmitBody,
  sessions: Map<string, ValuesSession>,
  sessionOf: (type: keyof ElementTypeHandlers) => ValuesSession | undefined,
): Promise<Submission> {
  const org = caller.organizationId;
  for (let computed = 0; ; computed += 1) {
    const outcome = await run(async (tx) => {
      const { target, planned } = await prepare(tx, pipeline, caller, body, sessionOf);
      const waiting: ValuesSession[] = [];
      for (const session of sessions.values()) if (!(await session.ready(tx))) waiting.push(session);
      if (waiting.length > 0) return { waiting };
      await runGuards(
        pipeline.guards,
        tx,
        org,
        planned.map((p) => ({
          formId: target.formId,
          siteId: target.siteId,
          year: target.year,
          period: p.periodUnit,
          path: `values.${p.index}`,
          label: p.element.key,
        })),
      );
      return { submission: await write(tx, caller, target, planned, [...sessions.values()]) };
    });
    if (outcome.submission) return outcome.submission;
    if (computed >= MAX_ATTEMPTS) {
      throw conflict(
        'What the calculations depended on (definitions, sites, coefficients) kept changing; try again',
      );
    }
    for (const session of outcome.waiting ?? []) await session.compute();
  }
}

/** Resolves the target and checks the values; the sessions plan theirs. Throws a 400 with every issue. */
async function prepare(
  tx: Tx,
  pipeline: ValuesPipeline,
  caller: Caller,
  body: SubmitBody,
  sessionOf: (type: keyof ElementTypeHandlers) => ValuesSession | undefined,
) {
  const org = caller.organizationId;
  const form = await resolveForm(tx, org, body);
  const siteId = await resolveSite(tx, org, body);
  const scope = await siteScope(tx, caller);
  authorize(policy.canWriteSiteData(caller, scope, siteId), 'You cannot enter data for this site');
  const formSite = await repo.activeFormSite(tx, org, form.id, siteId, body.year);
  if (!formSite) throw invalidField('year', `The form is not active on this site for ${body.year}`);
  const target: Target = { formId: form.id, formSiteId: formSite.id, siteId, year: body.year };

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
    handlers: pipeline.handlers,
  });
  const byType = new Map<keyof ElementTypeHandlers, PlannedValue[]>();
  for (const plan of checked.planned) {
    const list = byType.get(plan.element.type);
    if (list) list.push(plan);
    else byType.set(plan.element.type, [plan]);
  }
  const sessionIssues: Issue[] = [];
  for (const [type, values] of byType) {
    const session = sessionOf(type);
    if (session) sessionIssues.push(...(await session.plan(tx, values, target)));
  }
  assertNoIssues(
    [...issues, ...checked.issues, ...sessionIssues].sort((a, b) => byIndex(a.path) - byIndex(b.path)),
  );
  return { target, planned: checked.planned };
}

const byIndex = (path: string | undefined) => Number(/^values\.(\d+)/.exec(path ?? '')?.[1] ?? -1);

/** Writes the submission and its values, then each session's side records. */
async function write(
  tx: Tx,
  caller: Caller,
  target: Target,
  planned: PlannedValue[],
  sessions: ValuesSession[],
): Promise<Submission> {
  const org = caller.organizationId;
  // `values: []` changes nothing: a stored submission keeps its updatedAt.
  const submission = await repo.upsertSubmission(
    tx,
    org,
    target.formSiteId,
    caller.userId,
    planned.length > 0,
  );
  const stored = await valuesRepository.lockValues(tx, org, submission.id, [
    ...new Set(planned.map((p) => p.element.id)),
  ]);
  const items = await applyValues(tx, caller, submission.id, target, planned, stored);
  const byPlan = new Map(planned.map((plan, i) => [plan, items[i]]));
  for (const session of sessions) await session.write(tx, caller, target, (plan) => byPlan.get(plan));
  return {
    id: submission.id,
    organizationId: org,
    formSiteId: target.formSiteId,
    formId: target.formId,
    siteId: target.siteId,
    year: target.year,
    userId: submission.user_id,
    createdAt: iso(submission.created_at),
    updatedAt: iso(submission.updated_at),
    deletedAt: null,
    // A deletion that found no live value changed nothing and has no record to show.
    values: items.filter((item) => item !== undefined),
  };
}

/**
 * Writes the planned values against the stored (locked) ones; returns them in request order,
 * undefined for a deletion that found no live value (nothing changed, no record to show).
 */
async function applyValues(
  tx: Tx,
  caller: Caller,
  submissionId: string,
  place: { siteId: string; year: number },
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
    (await valuesRepository.writeValues(tx, org, submissionId, caller.userId, writes, place)).map((w) => [
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

function unchanged(live: StoredValue, write: ValueWrite): boolean {
  return (
    isDeepStrictEqual(live.value, write.value) &&
    isDeepStrictEqual(live.original_value ?? null, write.originalValue) &&
    live.selected_unit_id === write.selectedUnitId
  );
}
