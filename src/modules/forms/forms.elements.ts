import { randomUUID } from 'node:crypto';
import type { Tx } from '../../db/client.ts';
import type { ElementType, SelectOption } from '../../db/schema/index.ts';
import type { Issue } from '../../domain/errors.ts';
import { loadUnits } from '../units/index.ts';
import { type ElementWrite, formsRepository as repo } from './forms.repository.ts';
import type { ElementInput } from './forms.schemas.ts';

/** A stored element, as the repository reads it. */
export interface StoredElement {
  id: string;
  key: string;
  type: ElementType;
  unit_id: string | null;
  aggregation: string;
  deleted_at: Date | null;
}

export interface ElementPlan {
  rows: ElementWrite[];
  /** Stored elements the plan rewrites, by id. */
  matched: Map<string, StoredElement>;
  /** The index in the request of each planned row, by row id. */
  indexOf: Map<string, number>;
  issues: Issue[];
}

/**
 * Turns the requested element list into the rows to store. Elements are matched to stored
 * ones first by `id` (which may revive a deleted element), then by key among the live ones
 * not matched yet; the others are new. Every problem becomes an issue naming its field.
 */
export async function planElements(
  tx: Tx,
  organizationId: string,
  inputs: ElementInput[],
  stored: StoredElement[],
): Promise<ElementPlan> {
  const issues: Issue[] = [];
  const issue = (path: string, message: string) => issues.push({ path, message: `${path} ${message}` });

  const units = await loadUnits(
    tx,
    organizationId,
    inputs.flatMap((e) => (e.unitId ? [e.unitId] : [])),
  );
  const definitions = await repo.activityDefinitions(
    tx,
    organizationId,
    inputs.flatMap((e) => (e.activityDefinitionId ? [e.activityDefinitionId] : [])),
  );

  // Match: ids first, then keys among live elements no id claimed.
  const byId = new Map(stored.map((e) => [e.id, e]));
  const matched = new Map<string, StoredElement>();
  const matchOf: (StoredElement | undefined)[] = inputs.map((input, i) => {
    if (!input.id) return undefined;
    const found = byId.get(input.id);
    if (!found) issue(`elements.${i}.id`, 'is not an element of this form');
    else if (matched.has(found.id)) issue(`elements.${i}.id`, 'names an element listed twice');
    else matched.set(found.id, found);
    return found;
  });
  const liveByKey = new Map(stored.filter((e) => !e.deleted_at && !matched.has(e.id)).map((e) => [e.key, e]));

  const rows: ElementWrite[] = [];
  const indexOf = new Map<string, number>();
  const keys = new Map<string, number>();
  inputs.forEach((input, i) => {
    const path = `elements.${i}`;
    const definition = input.activityDefinitionId ? definitions.get(input.activityDefinitionId) : undefined;
    checkTypeFields(input, path, issue, units.has(input.unitId ?? ''), definition !== undefined);

    const key = input.key ?? (input.type === 'ACTIVITY' ? definition?.key : undefined);
    if (!key) {
      if (input.type !== 'ACTIVITY') issue(`${path}.key`, 'is required');
      return;
    }
    const seen = keys.get(key);
    if (seen !== undefined) issue(`${path}.key`, `repeats the key of elements.${seen} ("${key}")`);
    keys.set(key, i);

    let existing = matchOf[i];
    if (!input.id) {
      existing = liveByKey.get(key);
      if (existing) {
        liveByKey.delete(key);
        matched.set(existing.id, existing);
      }
    }
    const id = existing?.id ?? randomUUID();
    indexOf.set(id, i);
    rows.push({
      id,
      key,
      label: input.label,
      labels: input.labels ?? {},
      help_texts: input.helpTexts ?? {},
      type: input.type,
      required: input.required ?? false,
      unit_id: input.unitId ?? null,
      options: input.type === 'SELECT' ? (input.options ?? null) : null,
      activity_definition_id: input.activityDefinitionId ?? null,
      metadata: input.metadata ?? {},
      position: input.order ?? i,
      aggregation: input.type === 'NUMBER' ? (input.aggregation ?? 'SUM') : 'SUM',
      min_value: input.minValue ?? null,
      max_value: input.maxValue ?? null,
      integer_only: input.integer ?? false,
      warn_change_factor: input.warnChangeFactor ?? null,
    });
  });
  return { rows, matched, indexOf, issues };
}

function checkTypeFields(
  input: ElementInput,
  path: string,
  issue: (path: string, message: string) => void,
  unitKnown: boolean,
  definitionKnown: boolean,
) {
  if (input.unitId) {
    if (input.type !== 'NUMBER') issue(`${path}.unitId`, 'is only allowed on NUMBER elements');
    else if (!unitKnown) issue(`${path}.unitId`, 'is not a unit of this organization or the catalog');
  }
  if (input.aggregation && input.type !== 'NUMBER') {
    issue(`${path}.aggregation`, 'is only allowed on NUMBER elements');
  }
  checkRules(input, path, issue);
  if (input.type === 'SELECT') {
    if (!input.options) issue(`${path}.options`, 'are required for SELECT elements');
    else checkOptions(input.options, `${path}.options`, issue);
  } else if (input.options) {
    issue(`${path}.options`, 'are only allowed on SELECT elements');
  }
  if (input.type === 'ACTIVITY') {
    if (!input.activityDefinitionId)
      issue(`${path}.activityDefinitionId`, 'is required for ACTIVITY elements');
    else if (!definitionKnown)
      issue(`${path}.activityDefinitionId`, 'is not an activity definition you can use');
  } else if (input.activityDefinitionId) {
    issue(`${path}.activityDefinitionId`, 'is only allowed on ACTIVITY elements');
  }
}

/**
 * The plausibility rules (decision 159): NUMBER elements only (a rule given as null or false on
 * another type says nothing and is accepted), finite numbers, the lower limit not above the upper,
 * a change factor above 1. JSON cannot carry NaN, but `1e309` reads as Infinity.
 */
function checkRules(input: ElementInput, path: string, issue: (path: string, message: string) => void) {
  const given = {
    minValue: input.minValue ?? null,
    maxValue: input.maxValue ?? null,
    integer: input.integer === true ? true : null,
    warnChangeFactor: input.warnChangeFactor ?? null,
  };
  for (const [field, value] of Object.entries(given)) {
    if (value === null) continue;
    if (input.type !== 'NUMBER') issue(`${path}.${field}`, 'is only allowed on NUMBER elements');
    else if (typeof value === 'number' && !Number.isFinite(value))
      issue(`${path}.${field}`, 'must be a finite number');
  }
  if (input.type !== 'NUMBER') return;
  const { minValue, maxValue, warnChangeFactor } = given;
  if (minValue !== null && maxValue !== null && Number.isFinite(minValue) && minValue > maxValue) {
    issue(`${path}.minValue`, `must not be greater than maxValue (${minValue} > ${maxValue})`);
  }
  if (warnChangeFactor !== null && !(warnChangeFactor > 1)) {
    issue(`${path}.warnChangeFactor`, 'must be greater than 1');
  }
}

function checkOptions(options: SelectOption[], path: string, issue: (path: string, message: string) => void) {
  const seen = new Set<string>();
  options.forEach((option, j) => {
    if (seen.has(option.value)) issue(`${path}.${j}.value`, `repeats the option value "${option.value}"`);
    seen.add(option.value);
  });
}

/**
 * Stored values are kept in their element's type and unit (and period kind), so an element
 * with values keeps its type and unit, and a form with values keeps its period type.
 */
export async function checkChangesAgainstValues(
  tx: Tx,
  organizationId: string,
  plan: ElementPlan,
  stored: StoredElement[],
  periodTypeChanges: boolean,
): Promise<Issue[]> {
  const changing = plan.rows.filter((row) => {
    const before = plan.matched.get(row.id);
    return before && (before.type !== row.type || before.unit_id !== row.unit_id);
  });
  const candidates = periodTypeChanges ? stored.map((e) => e.id) : changing.map((r) => r.id);
  const withValues = await repo.elementsWithValues(tx, organizationId, candidates);
  const issues: Issue[] = [];
  if (periodTypeChanges && withValues.size > 0) {
    issues.push({ path: 'periodType', message: 'periodType cannot change: the form has stored values' });
  }
  for (const row of changing) {
    if (!withValues.has(row.id)) continue;
    const index = plan.indexOf.get(row.id);
    const before = plan.matched.get(row.id)!;
    const field = before.type !== row.type ? 'type' : 'unitId';
    const path = `elements.${index}.${field}`;
    issues.push({ path, message: `${path} cannot change: the element has stored values` });
  }
  return issues;
}

/**
 * An element's aggregation decides how its values add up over periods: changing it on an
 * element with values in a locked period would change locked figures, so it is refused, naming
 * the lock. (Its unit cannot change at all once it has values: see checkChangesAgainstValues.)
 */
export async function checkAggregationAgainstLocks(
  tx: Tx,
  organizationId: string,
  formId: string,
  plan: ElementPlan,
): Promise<Issue[]> {
  const changing = plan.rows.filter((row) => {
    const before = plan.matched.get(row.id);
    return before !== undefined && before.aggregation !== row.aggregation;
  });
  const locked = await repo.lockedElementValues(
    tx,
    organizationId,
    formId,
    changing.map((r) => r.id),
  );
  return changing.flatMap((row) => {
    const lockId = locked.get(row.id);
    if (!lockId) return [];
    const path = `elements.${plan.indexOf.get(row.id)}.aggregation`;
    return [
      {
        path,
        message: `${path} cannot change: the element has values in a period locked by lock ${lockId}; a manager must unlock it first`,
      },
    ];
  });
}
