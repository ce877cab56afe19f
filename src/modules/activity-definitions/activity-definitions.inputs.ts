import type { ActivityInputDefinition, ActivityInputType } from '../../db/schema/index.ts';
import { coded, type Issue } from '../../domain/errors.ts';
import { isExactNumber, TOO_LARGE } from '../../lib/numbers.ts';
import type { InputDefinitionBody } from './activity-definitions.schemas.ts';

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isIsoDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().startsWith(value);
}

/** Why `value` is not a value of an input of `type`, or null. */
function typeProblem(type: ActivityInputType, value: unknown): string | null {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? null : 'must be a string';
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a finite number';
      return isExactNumber(value) ? null : TOO_LARGE;
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && isIsoDate(value) ? null : 'must be a date written YYYY-MM-DD';
  }
}

/** A select option's value (always a string) read as a value of the input's type. */
function optionAsValue(type: ActivityInputType, option: string): unknown {
  if (type === 'number') return option.trim() === '' ? Number.NaN : Number(option);
  if (type === 'boolean') return option === 'true' ? true : option === 'false' ? false : option;
  return option;
}

/** Fills in the defaults of input definitions (required false, exportName = name). */
export function normalizeInputs(inputs: InputDefinitionBody[]): ActivityInputDefinition[] {
  return inputs.map((input) => ({
    name: input.name,
    type: input.type,
    required: input.required ?? false,
    exportName: input.exportName ?? input.name,
    ...(input.example === undefined ? {} : { example: input.example }),
    ...(input.editor ? { editor: input.editor } : {}),
  }));
}

/**
 * Problems of a list of input definitions: names and export names must be unique, and select
 * options must be distinct values of the input's type.
 */
export function inputDefinitionIssues(inputs: ActivityInputDefinition[]): Issue[] {
  const issues: Issue[] = [];
  const names = new Set<string>();
  const exportNames = new Set<string>();
  inputs.forEach((input, i) => {
    if (names.has(input.name)) {
      issues.push({ path: `inputs.${i}.name`, message: `inputs.${i}.name "${input.name}" is used twice` });
    }
    names.add(input.name);
    if (exportNames.has(input.exportName)) {
      issues.push({
        path: `inputs.${i}.exportName`,
        message: `inputs.${i}.exportName "${input.exportName}" is used twice`,
      });
    }
    exportNames.add(input.exportName);
    const values = new Set<string>();
    input.editor?.options.forEach((option, j) => {
      const path = `inputs.${i}.editor.options.${j}.value`;
      if (values.has(option.value)) issues.push({ path, message: `${path} "${option.value}" is used twice` });
      values.add(option.value);
      const problem = typeProblem(input.type, optionAsValue(input.type, option.value));
      if (problem) issues.push({ path, message: `${path} ${problem} (the input is of type ${input.type})` });
    });
  });
  return issues;
}

/**
 * Checks an activity's input object against its definition before calculating: unknown fields,
 * required fields, types and select options. Issues are named `<path>.<input name>`.
 */
export function activityInputIssues(
  definitions: readonly ActivityInputDefinition[],
  input: Record<string, unknown>,
  path = 'input',
): Issue[] {
  const issues: Issue[] = [];
  const byName = new Map(definitions.map((d) => [d.name, d]));
  for (const name of Object.keys(input)) {
    if (!byName.has(name)) {
      issues.push(
        coded(
          'activity.inputUnknown',
          `${path}.${name} is not an input of this activity definition`,
          { input: name },
          `${path}.${name}`,
        ),
      );
    }
  }
  for (const definition of definitions) {
    const where = `${path}.${definition.name}`;
    const value = input[definition.name];
    if (value === undefined || value === null || value === '') {
      if (definition.required) {
        issues.push(
          coded('activity.inputRequired', `${where} is required`, { input: definition.name }, where),
        );
      }
      continue;
    }
    const problem = typeProblem(definition.type, value);
    if (problem) {
      const code = problem === TOO_LARGE ? 'activity.inputTooLarge' : 'activity.inputType';
      issues.push(
        coded(code, `${where} ${problem}`, { input: definition.name, type: definition.type }, where),
      );
      continue;
    }
    const options = definition.editor?.options;
    if (options && !options.some((o) => o.value === String(value))) {
      const listed = options.map((o) => o.value).join(', ');
      issues.push(
        coded(
          'activity.inputNotOption',
          `${where} must be one of: ${listed}`,
          { input: definition.name, options: listed },
          where,
        ),
      );
    }
  }
  return issues;
}
