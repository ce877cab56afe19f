import { isDeepStrictEqual } from 'node:util';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { notFound } from '../../domain/errors.ts';
import { activityInputIssues } from '../activity-definitions/activity-definitions.inputs.ts';
import { getDefinitionForCalculation } from '../activity-definitions/activity-definitions.service.ts';
import { lockedActivities } from '../form-locks/form-locks.guard.ts';
import { type CalcJob, failed, withCalculations } from './activities.calculate.ts';
import {
  type ActivityHistoryWrite,
  type ActivitySnapshot,
  type ActivityUpdate,
  activitiesRepository as repo,
} from './activities.repository.ts';
import type { RecalculateResult } from './activities.schemas.ts';

/** Activities read, calculated and written per round. */
export const RECALCULATE_BATCH = 1000;
/** Failures listed in the answer (all are counted). */
export const MAX_LISTED_FAILURES = 100;

/**
 * Calculates every activity of the definition in the caller's organization again, with one
 * prepared runner, batch by batch in (year, id) order (the next batch calculates while one is written). Changed values and metadata are written
 * with one statement per batch and recorded in the activities' history; the values holding them
 * get their new sums. A failed calculation (or an input the definition no longer accepts) keeps
 * the activity as it was and is reported. Review statuses are kept: the entered data did not change.
 */
export async function recalculateDefinition(tx: Tx, caller: Caller, id: string): Promise<RecalculateResult> {
  const org = caller.organizationId;
  const definition = await getDefinitionForCalculation(tx, org, id);
  if (!definition) throw notFound('Activity definition');
  const result: RecalculateResult = { recalculated: 0, changed: 0, failed: 0, skipped: 0, failures: [] };
  const fail = (activityId: string, message: string) => {
    result.failed += 1;
    if (result.failures.length < MAX_LISTED_FAILURES) result.failures.push({ activityId, message });
  };
  const touchedValues = new Set<string>();

  type Batch = Awaited<ReturnType<typeof repo.definitionActivities>>;
  /** The next batch after `after` (null: the first), read once its values are locked. */
  const read = async (after: { year: number; id: string } | null) => {
    const page = await repo.definitionPage(tx, org, definition.id, after, RECALCULATE_BATCH);
    await repo.lockValues(
      tx,
      org,
      page.map((p) => p.form_element_submission_id),
    );
    const last = page[page.length - 1];
    // Activities of locked periods keep their values: counted as skipped.
    const locked = await lockedActivities(
      tx,
      org,
      page.map((p) => p.id),
    );
    result.skipped += locked.size;
    const rows = await repo.definitionActivities(
      tx,
      org,
      definition.id,
      page.flatMap((p) => (locked.has(p.id) ? [] : [p.id])),
    );
    return {
      rows,
      next: page.length === RECALCULATE_BATCH && last ? { year: last.year, id: last.id } : null,
    };
  };

  await withCalculations(tx, org, async (calculations) => {
    calculations.prepare(definition);
    /** Checks a batch's inputs and calculates the rest; outcomes in batch order (a string: refused input). */
    const calculate = async (batch: Batch) => {
      const refused = new Map<number, string>();
      const jobs: CalcJob[] = [];
      batch.forEach((row, i) => {
        const issues = activityInputIssues(definition.inputs, row.input, 'input');
        if (issues.length > 0) refused.set(i, issues.map((issue) => issue.message).join('; '));
        else
          jobs.push({
            definitionId: definition.id,
            input: row.input,
            context: {
              year: row.year,
              periodUnit: row.period_unit,
              site: { id: row.site_id, name: row.site_name, metadata: row.site_metadata },
            },
          });
      });
      const calculated = await calculations.run(jobs);
      let next = 0;
      return batch.map((_, i) => refused.get(i) ?? calculated[next++]!);
    };
    const write = async (batch: Batch, outcomes: Awaited<ReturnType<typeof calculate>>) => {
      const updates: ActivityUpdate[] = [];
      const history: ActivityHistoryWrite[] = [];
      for (const [i, row] of batch.entries()) {
        const outcome = outcomes[i]!;
        if (typeof outcome === 'string' || failed(outcome)) {
          fail(row.id, typeof outcome === 'string' ? outcome : outcome.message);
          continue;
        }
        result.recalculated += 1;
        const before: ActivitySnapshot = { input: row.input, value: row.value, metadata: row.metadata };
        const now: ActivitySnapshot = { input: row.input, value: outcome.value, metadata: outcome.metadata };
        if (isDeepStrictEqual(before, now)) continue;
        result.changed += 1;
        updates.push({ id: row.id, definitionId: definition.id, ...now });
        history.push({ activityId: row.id, action: 'RECALCULATE', before, after: now });
        touchedValues.add(row.form_element_submission_id);
      }
      // The author of an activity stays the person who entered it; the history names who recalculated.
      await repo.update(tx, org, null, updates);
      await repo.insertHistory(tx, org, caller.userId, history);
    };

    // A pipeline: the next batch is calculated (in the sandbox worker) while this one is written.
    let batch = await read(null);
    let pending = batch.rows.length > 0 || batch.next ? calculate(batch.rows) : undefined;
    try {
      while (pending) {
        const outcomes = await pending;
        const next = batch.next ? await read(batch.next) : { rows: [], next: null };
        pending = next.rows.length > 0 || next.next ? calculate(next.rows) : undefined;
        await write(batch.rows, outcomes);
        batch = next;
      }
    } finally {
      pending?.catch(() => undefined);
    }
  });
  await repo.resumValues(tx, org, [...touchedValues]);
  return result;
}
