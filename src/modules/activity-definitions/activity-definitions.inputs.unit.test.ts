import { describe, expect, it } from 'vitest';
import type { ActivityInputDefinition } from '../../db/schema/index.ts';
import {
  activityInputIssues,
  inputDefinitionIssues,
  normalizeInputs,
} from './activity-definitions.inputs.ts';
import { slugify } from './activity-definitions.service.ts';

const definitions: ActivityInputDefinition[] = normalizeInputs([
  { name: 'litres', type: 'number', required: true },
  {
    name: 'fuel',
    type: 'string',
    editor: { type: 'select', options: [{ label: 'Diesel', value: 'diesel' }] },
  },
  { name: 'metered', type: 'boolean' },
  { name: 'day', type: 'date' },
  { name: 'level', type: 'number', editor: { type: 'select', options: [{ label: 'One', value: '1' }] } },
]);

const paths = (input: Record<string, unknown>) => activityInputIssues(definitions, input).map((i) => i.path);

describe('activity inputs', () => {
  it('accept values of the declared types and select options', () => {
    expect(paths({ litres: 12.5, fuel: 'diesel', metered: false, day: '2025-02-28', level: 1 })).toEqual([]);
  });

  it('need required inputs; optional ones may be missing, null or empty', () => {
    expect(paths({})).toEqual(['input.litres']);
    expect(paths({ litres: null })).toEqual(['input.litres']);
    expect(paths({ litres: 1, fuel: null, day: '' })).toEqual([]);
  });

  it('refuse wrong types, unknown select options, impossible dates and unknown inputs', () => {
    expect(
      paths({ litres: '12', fuel: 'coal', metered: 'yes', day: '2025-02-30', level: 2, extra: 1 }),
    ).toEqual(['input.extra', 'input.litres', 'input.fuel', 'input.metered', 'input.day', 'input.level']);
    expect(activityInputIssues(definitions, { litres: Number.NaN }, 'values.3.value')[0]).toEqual({
      path: 'values.3.value.litres',
      message: 'values.3.value.litres must be a finite number',
      code: 'activity.inputType',
      params: { input: 'litres', type: 'number' },
    });
    const codes = activityInputIssues(definitions, { litres: '12', fuel: 'coal', extra: 1 }).map((i) => i.code);
    expect(codes).toEqual(['activity.inputUnknown', 'activity.inputType', 'activity.inputNotOption']);
  });
});

describe('input definitions', () => {
  it('get required false and exportName = name by default', () => {
    expect(normalizeInputs([{ name: 'a', type: 'string' }])).toEqual([
      { name: 'a', type: 'string', required: false, exportName: 'a' },
    ]);
  });

  it('must have unique names, unique export names and distinct options of their type', () => {
    const issues = inputDefinitionIssues(
      normalizeInputs([
        { name: 'a', type: 'number', exportName: 'A' },
        {
          name: 'b',
          type: 'boolean',
          exportName: 'A',
          editor: { type: 'select', options: [{ label: 'Y', value: 'yes' }] },
        },
        {
          name: 'c',
          type: 'string',
          editor: {
            type: 'select',
            options: [
              { label: 'X', value: 'x' },
              { label: 'X again', value: 'x' },
            ],
          },
        },
      ]),
    );
    expect(issues.map((i) => i.path)).toEqual([
      'inputs.1.exportName',
      'inputs.1.editor.options.0.value',
      'inputs.2.editor.options.1.value',
    ]);
  });
});

describe('slugify', () => {
  it.each([
    ['Fuel combustion', 'fuel-combustion'],
    ['Électricité — réseau (2025)', 'electricite-reseau-2025'],
    ['  --Scope 3: flights!  ', 'scope-3-flights'],
    ['温室效应', 'activity'],
  ])('%s -> %s', (name, slug) => {
    expect(slugify(name)).toBe(slug);
    expect(slug).toMatch(/^[a-z0-9]+(?:[_-][a-z0-9]+)*$/);
  });
});
