import type { ActivityInputDefinition } from '../../db/schema/index.ts';
import { coded, type Issue } from '../../domain/errors.ts';
import { activityInputIssues } from '../activity-definitions/index.ts';
import { dateOutsidePeriod, type PeriodWindow } from '../values/index.ts';

/** Activities in one ACTIVITY value (one element, one period). */
export const MAX_ACTIVITIES_PER_VALUE = 1000;
/** Activities in one request, over all its ACTIVITY values. */
export const MAX_ACTIVITIES_PER_REQUEST = 10_000;
/** One activity's input object, as JSON text. */
export const INPUT_MAX_CHARS = 16_384;

export type ActivityInput = Record<string, unknown>;

const isPlainObject = (value: unknown): value is ActivityInput =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The shape of an ACTIVITY element's value: an array (at most MAX_ACTIVITIES_PER_VALUE) of
 * input objects. The inputs themselves are checked against the element's definition later.
 */
export function activityListProblem(value: unknown): string | null {
  if (!Array.isArray(value)) return 'must be an array of activity inputs (objects)';
  if (value.length > MAX_ACTIVITIES_PER_VALUE) {
    return `must hold at most ${MAX_ACTIVITIES_PER_VALUE} activities`;
  }
  return null;
}

/** An input without its null fields: null clears a field, so it reads as never sent. */
export function normalizeInput(input: ActivityInput): ActivityInput {
  const out: ActivityInput = {};
  for (const [name, value] of Object.entries(input)) if (value !== null) out[name] = value;
  return out;
}

/**
 * Checks one activity input (an object of the definition's inputs, not too large) at `path`;
 * answers the normalized input, or the issues.
 */
export function checkActivityInput(
  definitions: readonly ActivityInputDefinition[],
  input: unknown,
  path: string,
): { input: ActivityInput } | { issues: Issue[] } {
  if (!isPlainObject(input)) {
    return { issues: [coded('activity.notObject', `${path} must be an object of inputs`, undefined, path)] };
  }
  if (JSON.stringify(input).length > INPUT_MAX_CHARS) {
    const message = `${path} must be at most ${INPUT_MAX_CHARS} characters of JSON`;
    return { issues: [coded('activity.inputTooLong', message, { max: INPUT_MAX_CHARS }, path)] };
  }
  const normalized = normalizeInput(input);
  const issues = activityInputIssues(definitions, normalized, path);
  return issues.length > 0 ? { issues } : { input: normalized };
}

/**
 * The date inputs of one (checked) activity input that fall outside the period its value is
 * written for (decision 159): one issue each at `<path>.<input>`, naming the element by `label`.
 */
export function datesOutsidePeriod(
  definitions: readonly ActivityInputDefinition[],
  input: ActivityInput,
  window: PeriodWindow,
  path: string,
  label: string,
): Issue[] {
  const issues: Issue[] = [];
  for (const definition of definitions) {
    const value = input[definition.name];
    if (definition.type !== 'date' || typeof value !== 'string') continue;
    const problem = dateOutsidePeriod(`${label}: ${definition.name}`, value, window);
    if (problem) issues.push({ path: `${path}.${definition.name}`, message: problem });
  }
  return issues;
}
