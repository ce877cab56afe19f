import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { badRequest, type Issue } from '../../domain/errors.ts';
import type { CalculationResult } from '../../sandbox/index.ts';
import type { ActivityDefinition } from '../activity-definitions/activity-definitions.schemas.ts';
import { getDefinitionForCalculation } from '../activity-definitions/activity-definitions.service.ts';
import type { ValueItem } from '../submissions/submissions.schemas.ts';
import type { PlannedValue } from '../submissions/submissions.values.ts';
import { failed, failureMessage, withCalculations } from './activities.calculate.ts';
import { type ActivityInput, checkActivityInput, MAX_ACTIVITIES_PER_REQUEST } from './activities.inputs.ts';
import {
  type ActivityHistoryWrite,
  type ActivityInsert,
  type ActivitySnapshot,
  type ActivityUpdate,
  activitiesRepository as repo,
} from './activities.repository.ts';
import type { ActivitySummary } from './activities.schemas.ts';
import { markersRepository, type Slot } from './markers.repository.ts';

/** One ACTIVITY value of a submission: its place among the planned values and its activities. */
interface Work {
  /** Index in the planned values (and so in the answer's items). */
  at: number;
  plan: PlannedValue;
  definition: ActivityDefinition | undefined;
  inputs: ActivityInput[];
  results: CalculationResult[];
}

/** The ACTIVITY values of one submission request, from checking to storing. */
export interface SubmissionActivities {
  /** Problems of the inputs (shape, definition's inputs), found before anything runs. */
  issues: Issue[];
  /** Calculates every activity; a failed calculation is a 400 naming its value and input index. */
  calculate(tx: Tx, organizationId: string, target: { siteId: string; year: number }): Promise<void>;
  /**
   * Replaces each value's activities (by position) and adds them to the answer's items
   * (undefined: a deletion that found nothing live, so there are no activities to remove).
   */
  save(
    tx: Tx,
    caller: Caller,
    target: { formSiteId: string; siteId: string; year: number },
    items: (ValueItem | undefined)[],
  ): Promise<void>;
}

const snapshot = (input: ActivityInput, result: CalculationResult): ActivitySnapshot => ({
  input,
  value: result.value,
  metadata: result.metadata,
});

/**
 * Checks the ACTIVITY values among `planned`: each is a list of input objects checked against
 * the element's activity definition. Stores the normalized list as the value to write.
 */
export async function planActivities(
  tx: Tx,
  organizationId: string,
  planned: PlannedValue[],
): Promise<SubmissionActivities> {
  const works: Work[] = [];
  const issues: Issue[] = [];
  const definitions = new Map<string, ActivityDefinition | undefined>();
  for (const [at, plan] of planned.entries()) {
    if (plan.element.type !== 'ACTIVITY') continue;
    const id = plan.element.activity_definition_id ?? '';
    if (plan.checked && !definitions.has(id)) {
      definitions.set(id, await getDefinitionForCalculation(tx, organizationId, id));
    }
    works.push({ at, plan, definition: definitions.get(id), inputs: [], results: [] });
  }

  let count = 0;
  for (const work of works) {
    const { checked, index } = work.plan;
    if (!checked) continue;
    const path = `values.${index}.value`;
    if (!work.definition) {
      issues.push({ path, message: `${path}: the element’s activity definition is no longer available` });
      continue;
    }
    const list = checked.value as unknown[];
    count += list.length;
    list.forEach((item, m) => {
      const result = checkActivityInput(work.definition!.inputs, item, `${path}.${m}`);
      if ('issues' in result) issues.push(...result.issues);
      else work.inputs.push(result.input);
    });
    checked.value = work.inputs;
  }
  if (count > MAX_ACTIVITIES_PER_REQUEST) {
    issues.push({
      path: 'values',
      message: `values hold ${count} activities; at most ${MAX_ACTIVITIES_PER_REQUEST} are allowed per request`,
    });
  }

  return {
    issues,
    calculate: (tx, organizationId, target) => calculate(tx, organizationId, target, works),
    save: (tx, caller, target, items) => save(tx, caller, target, works, items),
  };
}

async function calculate(
  tx: Tx,
  organizationId: string,
  target: { siteId: string; year: number },
  works: Work[],
): Promise<void> {
  const live = works.filter((w) => w.plan.checked && w.inputs.length > 0);
  for (const w of works) if (w.plan.checked) w.plan.checked.numericValue = 0;
  if (live.length === 0) return;
  const site = await repo.site(tx, organizationId, target.siteId);
  const issues: Issue[] = [];
  await withCalculations(tx, organizationId, async (calculations) => {
    for (const w of live) calculations.prepare(w.definition!);
    const jobs = live.flatMap((w) =>
      w.inputs.map((input) => ({
        definitionId: w.definition!.id,
        input,
        context: { year: target.year, periodUnit: w.plan.periodUnit, site },
      })),
    );
    const outcomes = await calculations.run(jobs);
    let next = 0;
    for (const w of live) {
      w.inputs.forEach((_, m) => {
        const outcome = outcomes[next++]!;
        if (failed(outcome)) {
          const path = `values.${w.plan.index}.value.${m}`;
          issues.push({ path, message: `${path}: ${failureMessage(outcome)}` });
        } else {
          w.results.push(outcome);
        }
      });
      const total = w.results.reduce((sum, r) => sum + r.value, 0);
      if (!Number.isFinite(total)) {
        const path = `values.${w.plan.index}.value`;
        issues.push({ path, message: `${path}: the activities add up to more than a number can hold` });
      }
      w.plan.checked!.numericValue = total;
    }
  });
  if (issues.length > 0) throw badRequest('An activity calculation failed; nothing was saved', issues);
}

async function save(
  tx: Tx,
  caller: Caller,
  target: { formSiteId: string; siteId: string; year: number },
  works: Work[],
  items: (ValueItem | undefined)[],
): Promise<void> {
  if (works.length === 0) return;
  const org = caller.organizationId;
  const valueIdOf = (w: Work) => items[w.at]?.formElementSubmissionId ?? null;
  const stored = await repo.lockByValues(
    tx,
    org,
    works.flatMap((w) => valueIdOf(w) ?? []),
  );
  const storedByValue = new Map<string, typeof stored>();
  for (const row of stored) {
    const list = storedByValue.get(row.form_element_submission_id);
    if (list) list.push(row);
    else storedByValue.set(row.form_element_submission_id, [row]);
  }

  const slots: Slot[] = [];
  const inserts: ActivityInsert[] = [];
  const updates: ActivityUpdate[] = [];
  const removals: string[] = [];
  const history: ActivityHistoryWrite[] = [];
  const sums: { id: string; total: number }[] = [];

  for (const w of works) {
    const item = items[w.at];
    const valueId = valueIdOf(w);
    if (!item || !valueId) continue;
    item.activities = [];
    const before = storedByValue.get(valueId) ?? [];
    const summaries: ActivitySummary[] = [];
    w.inputs.forEach((input, position) => {
      const after = snapshot(input, w.results[position]!);
      const old = before[position];
      const id = old?.id ?? randomUUID();
      summaries.push({ activityId: id, ...after });
      if (!old) {
        inserts.push({
          id,
          valueId,
          elementId: w.plan.element.id,
          definitionId: w.definition!.id,
          formSiteId: target.formSiteId,
          siteId: target.siteId,
          year: target.year,
          periodUnit: w.plan.periodUnit,
          position,
          ...after,
        });
        history.push({ activityId: id, action: 'CREATE', before: null, after });
        return;
      }
      const previous: ActivitySnapshot = { input: old.input, value: old.value, metadata: old.metadata };
      if (isDeepStrictEqual(previous, after)) return;
      updates.push({ id, definitionId: w.definition!.id, ...after });
      history.push({ activityId: id, action: 'UPDATE', before: previous, after });
    });
    for (const old of before.slice(w.inputs.length)) {
      removals.push(old.id);
      const previous: ActivitySnapshot = { input: old.input, value: old.value, metadata: old.metadata };
      history.push({ activityId: old.id, action: 'DELETE', before: previous, after: null });
    }
    item.activities = summaries;
    if (w.plan.checked) sums.push({ id: valueId, total: w.plan.checked.numericValue ?? 0 });
    if (w.inputs.length > 0) {
      slots.push({
        elementId: w.plan.element.id,
        siteId: target.siteId,
        year: target.year,
        periodUnit: w.plan.periodUnit,
      });
    }
  }

  if (slots.length > 0) {
    await markersRepository.lockFormSite(tx, target.formSiteId);
    await markersRepository.removeForSlots(tx, org, slots);
  }
  await repo.remove(tx, org, removals);
  await repo.update(tx, org, caller.userId, updates);
  await repo.insert(tx, org, caller.userId, inserts);
  await repo.insertHistory(tx, org, caller.userId, history);
  // A list entered again unchanged is not rewritten, but its results may differ (calcCode changed).
  await repo.setValueSums(tx, org, sums);
}
