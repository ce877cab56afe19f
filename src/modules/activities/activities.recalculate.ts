import { isDeepStrictEqual } from 'node:util';
import type { Caller } from '../../domain/caller.ts';
import { notFound } from '../../domain/errors.ts';
import { siteScope } from '../access/index.ts';
import { activityInputIssues, getDefinitionForCalculation } from '../activity-definitions/index.ts';
import { lockedActivities } from '../form-locks/index.ts';
import { lockValues, type TenantRun, writeValues } from '../values/index.ts';
import { type CalcJob, CalcSession, calculateThenWrite, failed } from './activities.calculate.ts';
import {
  type ActivityHistoryWrite,
  type ActivitySnapshot,
  type ActivityUpdate,
  activitiesRepository as repo,
} from './activities.repository.ts';
import type { RecalculateResult } from './activities.schemas.ts';
import type { ActivitiesDeps } from './activities.service.ts';

/** Activities read, calculated and written per batch (one short write transaction each). */
export const RECALCULATE_BATCH = 200;
/** Failures listed in the answer (all are counted). */
export const MAX_LISTED_FAILURES = 100;

interface BatchResult {
  recalculated: number;
  changed: number;
  /** Activities of locked periods, left as they are. */
  skipped: number;
  failures: { activityId: string; message: string }[];
  next: { year: number; id: string } | null;
}

/**
 * Calculates every activity of the definition on the caller's sites again (owners: the whole
 * organization; a member limited to some sites: those alone, and the counts are theirs), batch by batch
 * in (year, id) order. Each batch is calculated with no transaction held, then written in a short
 * transaction that locks the batch's values and checks that the activities, the definition and
 * the coefficients are as calculated (else calculates the changed ones again; 409 after 3 tries).
 * Changed values and metadata are recorded in the activities' history; the values holding them
 * get their new sums. A failed calculation (or an input the definition no longer accepts) keeps
 * the activity as it was and is reported. The per-request time budget applies per batch; the
 * per-definition breaker to the whole run. Review statuses are kept.
 */
export async function recalculateDefinition(
  deps: ActivitiesDeps,
  run: TenantRun,
  caller: Caller,
  id: string,
  signal: AbortSignal = new AbortController().signal,
): Promise<RecalculateResult> {
  const org = caller.organizationId;
  const result: RecalculateResult = { recalculated: 0, changed: 0, failed: 0, skipped: 0, failures: [] };
  const session = new CalcSession(org, run, signal, deps.limits);
  let after: { year: number; id: string } | null = null;
  try {
    do {
      session.resetBudget();
      const cursor = after;
      const batch: BatchResult = await calculateThenWrite<BatchResult>(session, run, async (tx) => {
        const definition = await getDefinitionForCalculation(tx, org, id);
        if (!definition) throw notFound('Activity definition');
        // Only the caller's sites: a member limited to some sites recalculates theirs alone.
        const scope = await siteScope(tx, caller);
        const page = await repo.definitionPage(tx, org, definition.id, cursor, RECALCULATE_BATCH, scope);
        // Activities of locked periods (form locks) keep their values: counted as skipped.
        const locked = await lockedActivities(
          tx,
          org,
          page.map((p) => p.id),
        );
        const read = () =>
          repo.definitionActivities(
            tx,
            org,
            definition.id,
            page.flatMap((p) => (locked.has(p.id) ? [] : [p.id])),
          );
        const plan = (rows: Awaited<ReturnType<typeof read>>) => {
          const refused = new Map<number, string>();
          const jobs: (CalcJob | undefined)[] = rows.map((row, i) => {
            const issues = activityInputIssues(definition.inputs, row.input, 'input');
            if (issues.length > 0) {
              refused.set(i, issues.map((issue) => issue.message).join('; '));
              return undefined;
            }
            return {
              source: definition,
              input: row.input,
              context: {
                year: row.year,
                periodUnit: row.period_unit,
                site: { id: row.site_id, name: row.site_name, metadata: row.site_metadata },
              },
            };
          });
          return { refused, jobs, needed: jobs.filter((j) => j !== undefined) };
        };
        // Reading without locks first: a batch not calculated yet is calculated outside.
        const first = plan(await read());
        if (session.missing(first.needed).length > 0) return { jobs: first.needed };
        await lockValues(
          tx,
          org,
          page.map((p) => p.form_element_submission_id),
        );
        const rows = await read();
        const { refused, jobs, needed } = plan(rows);
        if (session.missing(needed).length > 0 || !(await session.verify(tx))) return { jobs: needed };

        const outcomes = session.outcomes(jobs.map((j) => j ?? needed[0]!));
        const out: BatchResult = {
          recalculated: 0,
          changed: 0,
          skipped: locked.size,
          failures: [],
          next: null,
        };
        const updates: ActivityUpdate[] = [];
        const history: ActivityHistoryWrite[] = [];
        const touched = new Set<string>();
        const slots = [];
        for (const [i, row] of rows.entries()) {
          const outcome = refused.get(i) ?? outcomes[i]!;
          if (typeof outcome === 'string' || failed(outcome)) {
            out.failures.push({
              activityId: row.id,
              message: typeof outcome === 'string' ? outcome : outcome.message,
            });
            continue;
          }
          out.recalculated += 1;
          const before: ActivitySnapshot = { input: row.input, value: row.value, metadata: row.metadata };
          const now: ActivitySnapshot = {
            input: row.input,
            value: outcome.value,
            metadata: outcome.metadata,
          };
          if (isDeepStrictEqual(before, now)) continue;
          out.changed += 1;
          updates.push({
            id: row.id,
            definitionId: definition.id,
            ...now,
            coefficients: outcome.coefficients,
          });
          history.push({ activityId: row.id, action: 'RECALCULATE', before, after: now });
          touched.add(row.form_element_submission_id);
          slots.push({ formId: row.form_id, siteId: row.site_id, year: row.year, period: row.period_unit });
        }
        await writeValues(tx, caller, { guards: deps.guards, slots }, async (values) => {
          // The author of an activity stays the person who entered it; the history names who recalculated.
          await repo.update(tx, org, null, updates);
          await repo.insertHistory(tx, org, caller.userId, history);
          await values.resum([...touched]);
        });
        const last = page[page.length - 1];
        out.next = page.length === RECALCULATE_BATCH && last ? { year: last.year, id: last.id } : null;
        return { done: out };
      });
      result.recalculated += batch.recalculated;
      result.changed += batch.changed;
      result.skipped += batch.skipped;
      result.failed += batch.failures.length;
      for (const failure of batch.failures) {
        if (result.failures.length < MAX_LISTED_FAILURES) result.failures.push(failure);
      }
      after = batch.next;
    } while (after);
  } finally {
    await session.dispose();
  }
  return result;
}
