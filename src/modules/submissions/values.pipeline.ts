import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, conflict, type Issue, invalidField } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { policy, siteScope } from '../access/index.ts';
import {
  type ElementTypeHandlers,
  type PlannedValue,
  runGuards,
  type SlotGuard,
  type Target,
  type TenantRun,
  type ValuesSession,
} from './element-types.ts';
import { snapshotOf } from './submissions.history.ts';
import { presentValue } from './submissions.present.ts';
import { submissionsRepository as repo } from './submissions.repository.ts';
import { assertNoIssues, resolveElements, resolveTargets } from './submissions.resolve.ts';
import type { Submission, SubmitBody, ValueItem } from './submissions.schemas.ts';
import { checkValues, slotOf } from './submissions.values.ts';
import { submissionValuesRepository, type ValueChange, type ValueWrite } from './values.repository.ts';

/** What the composition root (`app.ts`) gives the pipeline: a handler per type, the slot guards. */
export interface ValuesPipeline {
  handlers: ElementTypeHandlers;
  guards: readonly SlotGuard[];
}

/** How many times work done outside a transaction (calculations) is redone before a 409. */
export const MAX_ATTEMPTS = 3;

type StoredValue = Awaited<ReturnType<typeof submissionValuesRepository.lockValuesOf>>[number];
type Users = Map<string, { name: string; email: string; image: string | null }>;

/** The caller and the other authors of `ids` (queried only when there are others). */
async function usersById(tx: Tx, caller: Caller, ids: Iterable<string>): Promise<Users> {
  const others = [...new Set(ids)].filter((id) => id !== caller.userId);
  const rows = await repo.users(tx, others);
  const users: Users = new Map(rows.map((u) => [u.id, u]));
  return users.set(caller.userId, { name: caller.name, email: caller.email, image: caller.image });
}

type SessionOf = (n: number, type: keyof ElementTypeHandlers) => ValuesSession | undefined;

/**
 * Checks and stores the values of one (form, site, year): what POST /form-submissions does. The
 * same as `storeValueSets` with one body.
 */
export async function storeValues(
  pipeline: ValuesPipeline,
  run: TenantRun,
  caller: Caller,
  body: SubmitBody,
  signal: AbortSignal = new AbortController().signal,
): Promise<Submission> {
  const [submission] = await storeValueSets(pipeline, run, caller, [body], signal);
  return submission!;
}

/**
 * Checks and stores the values of several (form, site, year), each named by one body (distinct
 * targets): what POST /form-submissions does for one, and what source imports call for all their
 * drafts at once, so both are checked and stored by one code. Each body is checked exactly as a
 * request of its own (its issues name `values.<index>` of that body; the first body with issues
 * refuses the whole call), while the statements are shared: one to resolve every target, one to
 * create or touch the submissions, one to lock the stored values, one per few thousand values
 * to write them with their history.
 *
 * Each attempt is one transaction (`run`): resolve and check everything, let each type's session
 * (one per body and type) plan its values; if a session needs work outside a transaction
 * (calculations), the transaction ends, the work runs, and the next attempt checks again that what
 * it depended on is unchanged. When every session is ready, in that same transaction: the slot
 * guards, then the writes. One invalid value and nothing is written. After MAX_ATTEMPTS
 * computations: 409.
 */
export async function storeValueSets(
  pipeline: ValuesPipeline,
  run: TenantRun,
  caller: Caller,
  bodies: readonly SubmitBody[],
  signal: AbortSignal = new AbortController().signal,
  /** `answer: false`: the caller needs no answer (source imports), so none is made; returns []. */
  options: { answer?: boolean } = {},
): Promise<Submission[]> {
  const org = caller.organizationId;
  const sessions: Map<string, ValuesSession>[] = bodies.map(() => new Map());
  const sessionOf: SessionOf = (n, type) => {
    const own = sessions[n]!;
    let session = own.get(type);
    const handler = pipeline.handlers[type];
    if (!session && handler.open) {
      session = handler.open({ organizationId: org, run, signal });
      own.set(type, session);
    }
    return session;
  };

  try {
    return await attempts(pipeline, run, caller, bodies, sessions, sessionOf, options.answer ?? true);
  } finally {
    for (const own of sessions) for (const session of own.values()) await session.close?.();
  }
}

async function attempts(
  pipeline: ValuesPipeline,
  run: TenantRun,
  caller: Caller,
  bodies: readonly SubmitBody[],
  sessions: Map<string, ValuesSession>[],
  sessionOf: SessionOf,
  answer: boolean,
): Promise<Submission[]> {
  const org = caller.organizationId;
  for (let computed = 0; ; computed += 1) {
    const outcome = await run(async (tx) => {
      const prepared = await prepare(tx, pipeline, caller, bodies, sessionOf);
      const waiting: ValuesSession[] = [];
      for (const own of sessions) {
        for (const session of own.values()) if (!(await session.ready(tx))) waiting.push(session);
      }
      if (waiting.length > 0) return { waiting };
      await runGuards(
        pipeline.guards,
        tx,
        org,
        prepared.flatMap(({ target, planned }) =>
          planned.map((p) => ({
            formId: target.formId,
            siteId: target.siteId,
            year: target.year,
            period: p.periodUnit,
            path: `values.${p.index}`,
            label: p.element.key,
          })),
        ),
      );
      return { submissions: await write(tx, caller, prepared, sessions, answer) };
    });
    if (outcome.submissions) return outcome.submissions;
    if (computed >= MAX_ATTEMPTS) {
      throw conflict(
        'What the calculations depended on (definitions, sites, coefficients) kept changing; try again',
      );
    }
    for (const session of outcome.waiting ?? []) await session.compute();
  }
}

interface Prepared {
  target: Target;
  planned: PlannedValue[];
}

/**
 * Resolves the targets and checks the values, body by body; the sessions plan theirs. Throws, at
 * the first body that has any, what a request of that body alone would (a 400 with every issue).
 */
async function prepare(
  tx: Tx,
  pipeline: ValuesPipeline,
  caller: Caller,
  bodies: readonly SubmitBody[],
  sessionOf: SessionOf,
): Promise<Prepared[]> {
  const org = caller.organizationId;
  const { targets, units } = await resolveTargets(tx, org, bodies);
  const scope = await siteScope(tx, caller);
  const prepared: Prepared[] = [];
  for (const [n, body] of bodies.entries()) {
    const resolved = targets[n]!;
    if ('error' in resolved) throw resolved.error;
    authorize(policy.canWriteSiteData(caller, scope, resolved.siteId), 'You cannot enter data for this site');
    if (!resolved.formSiteId) {
      throw invalidField('year', `The form is not active on this site for ${body.year}`);
    }
    const target: Target = {
      formId: resolved.formId,
      formSiteId: resolved.formSiteId,
      siteId: resolved.siteId,
      year: body.year,
    };
    const { resolved: elements, issues } = resolveElements(body.values, resolved.elements);
    const checked = checkValues(body.values, elements, {
      year: body.year,
      periodType: resolved.periodType,
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
      const session = sessionOf(n, type);
      if (session) sessionIssues.push(...(await session.plan(tx, values, target)));
    }
    assertNoIssues(
      [...issues, ...checked.issues, ...sessionIssues].sort((a, b) => byIndex(a.path) - byIndex(b.path)),
    );
    prepared.push({ target, planned: checked.planned });
  }
  return prepared;
}

const byIndex = (path: string | undefined) => Number(/^values\.(\d+)/.exec(path ?? '')?.[1] ?? -1);

/**
 * Writes the submissions and their values (all targets in shared statements), then each
 * session's side records, target by target.
 */
async function write(
  tx: Tx,
  caller: Caller,
  prepared: Prepared[],
  sessions: Map<string, ValuesSession>[],
  answer: boolean,
): Promise<Submission[]> {
  const org = caller.organizationId;
  // `values: []` changes nothing: a stored submission keeps its updatedAt.
  const formSitesOf = (touch: boolean) =>
    prepared.filter((p) => p.planned.length > 0 === touch).map((p) => p.target.formSiteId);
  const submissions = new Map(
    [
      ...(await repo.upsertSubmissions(tx, org, formSitesOf(true), caller.userId, true)),
      ...(await repo.upsertSubmissions(tx, org, formSitesOf(false), caller.userId, false)),
    ].map((s) => [s.form_site_id, s]),
  );
  const stored = await submissionValuesRepository.lockValuesOf(
    tx,
    org,
    [...submissions.values()].map((s) => s.id),
    prepared.flatMap((p) => p.planned.map((plan) => plan.element.id)),
  );
  const storedBySubmission = new Map<string, StoredValue[]>();
  for (const row of stored) {
    const list = storedBySubmission.get(row.form_submission_id);
    if (list) list.push(row);
    else storedBySubmission.set(row.form_submission_id, [row]);
  }
  const changes: ValueChange[] = [];
  const outcomes = prepared.map((p) => {
    const submission = submissions.get(p.target.formSiteId)!;
    const place = { submissionId: submission.id, siteId: p.target.siteId, year: p.target.year };
    return planChanges(place, p.planned, storedBySubmission.get(submission.id) ?? [], changes);
  });
  const writtenAt =
    changes.length > 0
      ? await submissionValuesRepository.applyChanges(tx, org, caller.userId, changes)
      : null;
  const users = await usersById(
    tx,
    caller,
    stored.map((s) => s.user_id),
  );

  const out: Submission[] = [];
  for (const [n, { target, planned }] of prepared.entries()) {
    const submission = submissions.get(target.formSiteId)!;
    // Each item is made when first asked for: by a session, or for the answer.
    const made = new Map<number, ValueItem | undefined>();
    const item = (i: number) => {
      if (!made.has(i)) made.set(i, present(caller, planned[i]!, outcomes[n]![i], writtenAt, users));
      return made.get(i);
    };
    const indexOf = new Map(planned.map((plan, i) => [plan, i]));
    for (const session of sessions[n]!.values()) {
      await session.write(tx, caller, target, (plan) => {
        const i = indexOf.get(plan);
        return i === undefined ? undefined : item(i);
      });
    }
    if (!answer) continue;
    const items = planned.map((_, i) => item(i));
    out.push({
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
    });
  }
  return out;
}

/** Per planned value: the stored row it ends as, the change written, or nothing live to show. */
type Outcome = { stored: StoredValue; change?: ValueChange } | { change: ValueChange } | undefined;

/**
 * Compares the planned values of one submission with its stored (locked) rows; adds to `changes`
 * what must be written (an unchanged value is neither rewritten nor recorded in its history).
 */
function planChanges(
  place: { submissionId: string; siteId: string; year: number },
  planned: PlannedValue[],
  stored: StoredValue[],
  changes: ValueChange[],
): Outcome[] {
  const bySlot = new Map(stored.map((s) => [slotOf(s.element_id, s.period_unit, s.timestamp), s]));
  return planned.map((plan): Outcome => {
    const existing = bySlot.get(slotOf(plan.element.id, plan.periodUnit, plan.timestamp));
    const live = existing && !existing.deleted_at ? existing : undefined;
    if (!plan.checked) {
      if (!live) return undefined;
      const change: ValueChange = {
        id: live.id,
        elementId: live.element_id,
        periodUnit: live.period_unit,
        timestamp: live.timestamp,
        value: live.value,
        originalValue: live.original_value,
        numericValue: null,
        selectedUnitId: live.selected_unit_id,
        submissionId: place.submissionId,
        siteId: place.siteId,
        year: place.year,
        action: 'DELETE',
        stored: true,
        before: snapshotOf(live),
      };
      changes.push(change);
      return { stored: live, change };
    }
    // One literal of one shape (no spreads): this runs once per value, 10,000 times in an import.
    const change: ValueChange = {
      id: existing?.id ?? randomUUID(),
      elementId: plan.element.id,
      periodUnit: plan.periodUnit,
      timestamp: plan.timestamp,
      value: plan.checked.value,
      originalValue: plan.checked.originalValue,
      numericValue: plan.checked.numericValue,
      selectedUnitId: plan.selectedUnitId,
      submissionId: place.submissionId,
      siteId: place.siteId,
      year: place.year,
      action: live ? 'UPDATE' : 'CREATE',
      stored: existing !== undefined,
      before: null,
    };
    if (live) {
      if (unchanged(live, change)) return { stored: live };
      change.before = snapshotOf(live);
    }
    changes.push(change);
    return { change };
  });
}

/** The answer's item of a planned value (undefined: a deletion that found nothing live). */
function present(
  caller: Caller,
  plan: PlannedValue,
  outcome: Outcome,
  /** When this call's changes were written (null: nothing changed). */
  writtenAt: Date | null,
  users: Users,
): ValueItem | undefined {
  const key = plan.element.key;
  if (!outcome) return undefined;
  if (!('stored' in outcome)) {
    // Written by this request.
    const row = outcome.change;
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
        recorded_at: writtenAt!,
        deleted_at: null,
      },
      key,
      users.get(caller.userId)!,
    );
  }
  const deletedAt = outcome.change ? writtenAt! : undefined;
  const userId = deletedAt ? caller.userId : outcome.stored.user_id;
  return presentValue(
    { ...outcome.stored, user_id: userId, deleted_at: deletedAt ?? outcome.stored.deleted_at },
    key,
    users.get(userId)!,
  );
}

function unchanged(live: StoredValue, write: ValueWrite): boolean {
  return (
    isDeepStrictEqual(live.value, write.value) &&
    isDeepStrictEqual(live.original_value ?? null, write.originalValue) &&
    live.selected_unit_id === write.selectedUnitId
  );
}
