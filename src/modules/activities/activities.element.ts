import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { badRequest, coded, type Issue } from '../../domain/errors.ts';
import { groupBy } from '../../lib/group-by.ts';
import type { CalculationResult } from '../../sandbox/index.ts';
import type { ActivityDefinition } from '../activity-definitions/index.ts';
import { getDefinitionForCalculation } from '../activity-definitions/index.ts';
import type {
  ActivitySummary,
  ElementTypeHandler,
  PlannedValue,
  PlanOptions,
  StoreContext,
  SubmissionTarget,
  ValueItem,
  ValuesSession,
} from '../values/index.ts';
import {
  type CalcJob,
  type CalcLimits,
  type CalcResult,
  CalcSession,
  DEFAULT_CALC_LIMITS,
  failed,
  failureMessage,
} from './activities.calculate.ts';
import {
  type ActivityInput,
  activityListProblem,
  checkActivityInput,
  datesOutsidePeriod,
  MAX_ACTIVITIES_PER_REQUEST,
} from './activities.inputs.ts';
import {
  type ActivityHistoryWrite,
  type ActivityInsert,
  type ActivitySnapshot,
  type ActivityUpdate,
  activitiesRepository as repo,
} from './activities.repository.ts';
import { markersRepository, type Slot } from './markers.repository.ts';

/** One ACTIVITY value of a submission: its plan, definition, inputs and (once calculated) results. */
interface Work {
  plan: PlannedValue;
  definition: ActivityDefinition | undefined;
  inputs: ActivityInput[];
  jobs: CalcJob[];
  results: CalcResult[];
}

/**
 * The ACTIVITY element type: a value is a list of input objects, checked against the element's
 * activity definition and calculated one activity per input (outside any transaction); the
 * value's number is the sum, and the activities are written beside the value.
 */
/**
 * A calculation session handed in the store context (`shared`) is used instead of a new one, and
 * not disposed: source imports pass the one that already calculated their rows, so nothing is
 * calculated twice.
 */
export function activityElementHandler(limits: CalcLimits = DEFAULT_CALC_LIMITS): ElementTypeHandler {
  return {
    check(value) {
      // The list's inputs are checked against the definition in the session's plan.
      const problem = activityListProblem(value);
      return problem
        ? { field: 'value', message: problem }
        : { value, originalValue: null, numericValue: null };
    },
    open: (ctx) => new ActivitySession(ctx, limits),
  };
}

class ActivitySession implements ValuesSession {
  private works: Work[] = [];
  private readonly calc: CalcSession;
  /** The calculation session is the caller's (`ctx.shared`): not ours to dispose. */
  private readonly borrowed: boolean;

  constructor(
    private readonly ctx: StoreContext,
    limits: CalcLimits,
  ) {
    this.borrowed = ctx.shared instanceof CalcSession;
    this.calc =
      ctx.shared instanceof CalcSession
        ? ctx.shared
        : new CalcSession(ctx.organizationId, ctx.run, ctx.signal, limits);
  }

  async plan(
    tx: Tx,
    values: PlannedValue[],
    target: SubmissionTarget,
    options: PlanOptions = {},
  ): Promise<Issue[]> {
    const org = this.ctx.organizationId;
    const issues: Issue[] = [];
    const definitions = new Map<string, ActivityDefinition | undefined>();
    this.works = [];
    for (const plan of values) {
      const id = plan.element.activity_definition_id ?? '';
      if (plan.checked && !definitions.has(id)) {
        definitions.set(id, await getDefinitionForCalculation(tx, org, id));
      }
      this.works.push({ plan, definition: definitions.get(id), inputs: [], jobs: [], results: [] });
    }
    let count = 0;
    for (const work of this.works) {
      const { checked, index } = work.plan;
      if (!checked) continue;
      const path = `values.${index}.value`;
      if (!work.definition) {
        issues.push({ path, message: `${path}: the element’s activity definition is no longer available` });
        continue;
      }
      const list = checked.value as unknown[];
      count += list.length;
      if (options.checked) {
        // Each input was checked against this definition when its row was (source imports).
        work.inputs = list as ActivityInput[];
        continue;
      }
      const window = target.periodType
        ? { year: target.year, periodType: target.periodType, periodUnit: work.plan.periodUnit }
        : undefined;
      list.forEach((item, m) => {
        const result = checkActivityInput(work.definition!.inputs, item, `${path}.${m}`);
        if ('issues' in result) issues.push(...result.issues);
        else {
          work.inputs.push(result.input);
          if (window) {
            const label = work.plan.element.label;
            issues.push(
              ...datesOutsidePeriod(work.definition!.inputs, result.input, window, `${path}.${m}`, label),
            );
          }
        }
      });
      checked.value = work.inputs;
    }
    if (count > MAX_ACTIVITIES_PER_REQUEST) {
      issues.push(
        coded(
          'activity.tooMany',
          `values hold ${count} activities; at most ${MAX_ACTIVITIES_PER_REQUEST} are allowed per request`,
          { count, max: MAX_ACTIVITIES_PER_REQUEST },
          'values',
        ),
      );
    }
    if (issues.length > 0) return issues;

    const live = this.works.filter((w) => w.plan.checked && w.inputs.length > 0);
    if (live.length > 0) {
      const site = await repo.site(tx, org, target.siteId);
      for (const w of live) {
        w.jobs = w.inputs.map((input) => ({
          source: w.definition!,
          input,
          context: { year: target.year, periodUnit: w.plan.periodUnit, site },
        }));
      }
    }
    return [];
  }

  async ready(tx: Tx): Promise<boolean> {
    const jobs = this.works.flatMap((w) => w.jobs);
    if (this.calc.missing(jobs).length > 0 || !(await this.calc.verify(tx))) return false;
    const issues: Issue[] = [];
    for (const w of this.works) {
      if (!w.plan.checked) continue;
      w.results = [];
      this.calc.outcomes(w.jobs).forEach((outcome, m) => {
        if (failed(outcome!)) {
          const path = `values.${w.plan.index}.value.${m}`;
          const detail = failureMessage(outcome);
          const label = w.plan.element.label;
          issues.push(coded('activity.calculationFailed', `${path}: ${detail}`, { label, detail }, path));
        } else w.results.push(outcome!);
      });
      const total = w.results.reduce((sum, r) => sum + r.value, 0);
      if (!Number.isFinite(total)) {
        const path = `values.${w.plan.index}.value`;
        const message = `${path}: the activities add up to more than a number can hold`;
        issues.push(coded('activity.sumTooLarge', message, { label: w.plan.element.label }, path));
      }
      w.plan.checked.numericValue = total;
    }
    if (issues.length > 0) throw badRequest('An activity calculation failed; nothing was saved', issues);
    return true;
  }

  compute(): Promise<void> {
    return this.calc.compute(this.works.flatMap((w) => w.jobs));
  }

  write(
    tx: Tx,
    caller: Caller,
    target: SubmissionTarget,
    valueIds: ReadonlyMap<PlannedValue, string>,
  ): Promise<ReadonlyMap<PlannedValue, Partial<ValueItem>>> {
    return saveActivities(tx, caller, target, this.works, valueIds);
  }

  close(): Promise<void> {
    return this.borrowed ? Promise.resolve() : this.calc.dispose();
  }
}

const snapshot = (input: ActivityInput, result: CalculationResult): ActivitySnapshot => ({
  input,
  value: result.value,
  metadata: result.metadata,
});

/**
 * Replaces each value's activities (by position); returns them per planned value, for the
 * answer's items (a value with no stored row, a deletion that found nothing, gets none).
 */
async function saveActivities(
  tx: Tx,
  caller: Caller,
  target: SubmissionTarget,
  works: Work[],
  valueIds: ReadonlyMap<PlannedValue, string>,
): Promise<Map<PlannedValue, Partial<ValueItem>>> {
  const added = new Map<PlannedValue, Partial<ValueItem>>();
  if (works.length === 0) return added;
  const org = caller.organizationId;
  const valueIdOf = (w: Work) => valueIds.get(w.plan);
  const stored = await repo.lockByValues(
    tx,
    org,
    works.flatMap((w) => valueIdOf(w) ?? []),
  );
  const storedByValue = groupBy(stored, (row) => row.form_element_submission_id);

  const slots: Slot[] = [];
  const inserts: ActivityInsert[] = [];
  const updates: ActivityUpdate[] = [];
  const removals: string[] = [];
  const history: ActivityHistoryWrite[] = [];

  for (const w of works) {
    const valueId = valueIdOf(w);
    if (!valueId) continue;
    const before = storedByValue.get(valueId) ?? [];
    const summaries: ActivitySummary[] = [];
    w.inputs.forEach((input, position) => {
      const after = snapshot(input, w.results[position]!);
      const coefficients = w.results[position]!.coefficients;
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
          coefficients,
        });
        history.push({ activityId: id, action: 'CREATE', before: null, after });
        return;
      }
      const previous: ActivitySnapshot = { input: old.input, value: old.value, metadata: old.metadata };
      if (isDeepStrictEqual(previous, after)) return;
      updates.push({ id, definitionId: w.definition!.id, ...after, coefficients });
      history.push({ activityId: id, action: 'UPDATE', before: previous, after });
    });
    for (const old of before.slice(w.inputs.length)) {
      removals.push(old.id);
      const previous: ActivitySnapshot = { input: old.input, value: old.value, metadata: old.metadata };
      history.push({ activityId: old.id, action: 'DELETE', before: previous, after: null });
    }
    added.set(w.plan, { activities: summaries });
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
  // The value's number (the sum, set by `ready`) was written with the value by the pipeline.
  return added;
}
