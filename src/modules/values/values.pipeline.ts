import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import type { Issue } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { groupBy } from '../../lib/group-by.ts';
import { Turns } from '../../lib/turns.ts';
import type { ValueChange, ValueWrite } from './changes.repository.ts';
import type {
  ElementTypeHandlers,
  PlannedValue,
  SlotGuard,
  ValueSlot,
  ValuesSession,
} from './element-types.ts';
import { valueTargetsRepository as repo } from './targets.repository.ts';
import type { AttemptOutcome } from './values.attempts.ts';
import { snapshotOf } from './values.history.ts';
import { issueOf } from './values.issues.ts';
import { slotOf } from './values.plain.ts';
import { presentPlannedValue, type StoredValue, type Users, type ValueOutcome } from './values.present.ts';
import { submissionValuesRepository } from './values.repository.ts';
import type { ResolvedBatch, ResolvedEntry } from './values.resolve.ts';
import type { Submission, ValueItem } from './values.schemas.ts';
import type { ValuesSessions } from './values.sessions.ts';
import { assertNoIssues } from './values.targets.ts';
import { type ValueWrites, writeValues } from './values.write.ts';

/** What the composition root (`app.ts`) gives the pipeline: a handler per type, the slot guards. */
export interface ValuesPipeline {
  handlers: ElementTypeHandlers;
  guards: readonly SlotGuard[];
}

// The pipeline is one of the services every route plugin is given (decision 231).
declare module '../../http/services.ts' {
  interface Services {
    /** The values engine's handlers per element type and its slot guards (a period lock, ...). */
    pipeline: ValuesPipeline;
  }
}

/** The caller and the other authors of `ids` (queried only when there are others). */
async function usersById(tx: Tx, caller: Caller, ids: Iterable<string>): Promise<Users> {
  const others = [...new Set(ids)].filter((id) => id !== caller.userId);
  const rows = await repo.users(tx, others);
  const users: Users = new Map(rows.map((u) => [u.id, u]));
  return users.set(caller.userId, { name: caller.name, email: caller.email, image: caller.image });
}

/** How `storeBatch` is called. */
export interface StoreOptions {
  /** false: the caller needs no answer (source imports), so none is made; returns []. */
  answer?: boolean;
  /** The entries' values were checked against the database in this transaction (sessions only prepare). */
  checked?: boolean;
}

/**
 * One attempt at storing a resolved batch, in the caller's transaction; the statements are
 * shared by all entries: one to create or touch the submissions, one to lock the stored values,
 * one per few thousand values to write them with their history.
 *
 * Each type's session (one per entry and type) plans its values; the first entry with any issue
 * (its own, or its sessions') refuses the whole call with a 400 naming `values.<index>`. When a
 * session needs work outside a transaction (calculations), answers `compute`: the caller ends the
 * transaction, runs it, and tries again. When every session is ready: the slot guards, then the
 * writes. One invalid value and nothing is written.
 */
export async function storeBatch(
  tx: Tx,
  pipeline: ValuesPipeline,
  caller: Caller,
  batch: ResolvedBatch,
  sessions: ValuesSessions,
  options: StoreOptions = {},
): Promise<AttemptOutcome<Submission[]>> {
  for (const [n, entry] of batch.entries.entries()) await plan(tx, entry, sessions, n, options);
  const waiting: ValuesSession[] = [];
  for (const session of sessions.all()) if (!(await session.ready(tx))) waiting.push(session);
  if (waiting.length > 0) {
    return {
      compute: async () => {
        for (const session of waiting) await session.compute();
      },
    };
  }
  const guarded = { guards: pipeline.guards, slots: guardedSlots(batch.entries) };
  const done = await writeValues(tx, caller, guarded, (values) =>
    write(tx, caller, batch.entries, sessions, options.answer ?? true, values),
  );
  return { done };
}

/**
 * The slots the guards check: each entry's periods, named by the first value that lands in each
 * (the guards check one slot per period, not one per value: 120 slots for a 10,000-row import).
 */
export function guardedSlots(entries: readonly ResolvedEntry[]): ValueSlot[] {
  const slots: ValueSlot[] = [];
  for (const { target, planned } of entries) {
    const seen = new Set<number>();
    for (const p of planned) {
      if (seen.has(p.periodUnit)) continue;
      seen.add(p.periodUnit);
      slots.push({
        formId: target.formId,
        siteId: target.siteId,
        year: target.year,
        period: p.periodUnit,
        path: `values.${p.index}`,
        label: p.element.label,
      });
    }
  }
  return slots;
}

/** The sessions of one entry plan its values; throws a 400 with every issue of the entry. */
async function plan(
  tx: Tx,
  entry: ResolvedEntry,
  sessions: ValuesSessions,
  n: number,
  options: StoreOptions,
): Promise<void> {
  assertNoIssues(await planIssues(tx, entry, sessions, n, options));
}

/**
 * Every issue of one entry, by value order: its values' own (type, rules, elements) and those its
 * types' sessions find when they plan (definitions, media, activity inputs).
 */
export async function planIssues(
  tx: Tx,
  entry: ResolvedEntry,
  sessions: ValuesSessions,
  n: number,
  options: StoreOptions = {},
): Promise<Issue[]> {
  const byType = groupBy(entry.planned, (p): keyof ElementTypeHandlers => p.element.type);
  const sessionIssues: Issue[] = [];
  for (const [type, values] of byType) {
    const session = sessions.of(n, type);
    if (session) sessionIssues.push(...(await session.plan(tx, values, entry.target, options)));
  }
  return [...entry.issues.map(issueOf), ...sessionIssues].sort((a, b) => byIndex(a.path) - byIndex(b.path));
}

const byIndex = (path: string | undefined) => Number(/^values\.(\d+)/.exec(path ?? '')?.[1] ?? -1);

/**
 * Writes the submissions and their values (all targets in shared statements), then each
 * session's side records, target by target.
 */
async function write(
  tx: Tx,
  caller: Caller,
  entries: ResolvedEntry[],
  sessions: ValuesSessions,
  answer: boolean,
  values: ValueWrites,
): Promise<Submission[]> {
  const org = caller.organizationId;
  // A batch over several (site, year) (an import) takes all the aggregates' stripe locks first.
  if (new Set(entries.map((p) => `${p.target.siteId}:${p.target.year}`)).size > 1)
    await values.lockAggregateStripes();
  // `values: []` changes nothing: a stored submission keeps its updatedAt.
  const formSitesOf = (touch: boolean) =>
    entries.filter((p) => p.planned.length > 0 === touch).map((p) => p.target.formSiteId);
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
    entries.flatMap((p) => p.planned.map((plan) => plan.element.id)),
  );
  const storedBySubmission = groupBy(stored, (row) => row.form_submission_id);
  const changes: ValueChange[] = [];
  const renumbered: Renumbered[] = [];
  // Target by target, with a turn of the loop when due (decision 0165): an import's 10,000 values.
  const outcomes: ValueOutcome[][] = [];
  const turns = new Turns();
  for (const p of entries) {
    if (turns.due()) await turns.give();
    const submission = submissions.get(p.target.formSiteId)!;
    const place = { submissionId: submission.id, siteId: p.target.siteId, year: p.target.year };
    outcomes.push(
      planChanges(place, p.planned, storedBySubmission.get(submission.id) ?? [], changes, renumbered),
    );
  }
  const writtenAt = changes.length > 0 ? await values.apply(changes) : null;
  // Each value's number is written once: with its change, or alone when only the number changed.
  if (renumbered.length > 0) await values.renumber(renumbered);
  const users = answer
    ? await usersById(
        tx,
        caller,
        stored.map((s) => s.user_id),
      )
    : new Map();

  const out: Submission[] = [];
  for (const [n, { target, planned }] of entries.entries()) {
    const submission = submissions.get(target.formSiteId)!;
    const valueIds = new Map<PlannedValue, string>();
    planned.forEach((plan, i) => {
      const outcome = outcomes[n]![i];
      if (outcome) valueIds.set(plan, 'stored' in outcome ? outcome.stored.id : outcome.change.id);
    });
    const additions: ReadonlyMap<PlannedValue, Partial<ValueItem>>[] = [];
    for (const session of sessions.entry(n)) {
      const added = await session.write(tx, caller, target, valueIds);
      if (added) additions.push(added);
    }
    if (!answer) continue;
    const items: ValueItem[] = [];
    planned.forEach((plan, i) => {
      const item = presentPlannedValue(caller, plan, outcomes[n]![i], writtenAt, users);
      // A deletion that found no live value changed nothing and has no record to show.
      if (!item) return;
      for (const added of additions) Object.assign(item, added.get(plan));
      items.push(item);
    });
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
      values: items,
    });
  }
  return out;
}

/** A value unchanged but for its number (an activity list whose results differ: calcCode changed). */
type Renumbered = { id: string; total: number | null };

/**
 * Compares the planned values of one submission with its stored (locked) rows; adds to `changes`
 * what must be written (an unchanged value is neither rewritten nor recorded in its history), and
 * to `renumbered` the unchanged values whose number differs from the stored one.
 */
function planChanges(
  place: { submissionId: string; siteId: string; year: number },
  planned: PlannedValue[],
  stored: StoredValue[],
  changes: ValueChange[],
  renumbered: Renumbered[],
): ValueOutcome[] {
  const bySlot = new Map(stored.map((s) => [slotOf(s.element_id, s.period_unit, s.timestamp), s]));
  return planned.map((plan): ValueOutcome => {
    // Into an empty submission (a new year's import) no slot key needs to be made.
    const existing =
      bySlot.size === 0 ? undefined : bySlot.get(slotOf(plan.element.id, plan.periodUnit, plan.timestamp));
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
        source: null,
        comment: plan.comment ?? null,
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
      source: plan.source ?? null,
      comment: plan.comment ?? null,
    };
    if (live) {
      if (unchanged(live, change)) {
        if (live.numeric_value !== change.numericValue)
          renumbered.push({ id: live.id, total: change.numericValue });
        return { stored: live };
      }
      change.before = snapshotOf(live);
    }
    changes.push(change);
    return { change };
  });
}

function unchanged(live: StoredValue, write: ValueWrite): boolean {
  return (
    isDeepStrictEqual(live.value, write.value) &&
    isDeepStrictEqual(live.original_value ?? null, write.originalValue) &&
    live.selected_unit_id === write.selectedUnitId
  );
}
