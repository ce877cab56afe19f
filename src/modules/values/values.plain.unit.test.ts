import { describe, expect, it } from 'vitest';
import type { ElementType } from '../../db/schema/index.ts';
import { activityElementHandler } from '../activities/activities.element.ts';
import type { UnitFactor } from '../units/units.convert.ts';
import type { ElementInfo } from './element-types.ts';
import { issueOf } from './values.issues.ts';
import { checkValues, PLAIN_HANDLERS } from './values.plain.ts';
import { parseTimestamp } from './values.timestamp.ts';

const handlers = { ...PLAIN_HANDLERS, ACTIVITY: activityElementHandler() };

const kwh: UnitFactor = { id: 'u-kwh', symbol: 'kWh', dimension: 'energy', factor_to_base: 1 };
const mwh: UnitFactor = { id: 'u-mwh', symbol: 'MWh', dimension: 'energy', factor_to_base: 1000 };

const element = (type: ElementType, extra: Partial<ElementInfo> = {}): ElementInfo => ({
  id: `el-${type}`,
  key: type.toLowerCase(),
  label: `The ${type.toLowerCase()}`,
  type,
  unit_id: null,
  options: null,
  metadata: {},
  ...extra,
});
const check = (type: ElementType, value: unknown, extra: Partial<ElementInfo> = {}) =>
  handlers[type].check(value, {
    element: element(type, extra),
    elementUnit: undefined,
    selectedUnit: undefined,
  });

describe('value checks by element type', () => {
  it('accept what each type allows', () => {
    expect(check('NUMBER', 1.5)).toEqual({ value: 1.5, originalValue: null, numericValue: 1.5 });
    expect(check('TEXT', 'x')).toMatchObject({ value: 'x', numericValue: null });
    expect(check('BOOLEAN', false)).toMatchObject({ value: false });
    expect(check('SELECT', 'b', { options: [{ label: 'B', value: 'b' }] })).toMatchObject({ value: 'b' });
    expect(check('DATE', '2024-02-29')).toMatchObject({ value: '2024-02-29' });
    expect(check('TIMESTAMP', 42)).toMatchObject({ value: 42, numericValue: 42 });
    expect(check('TIMESTAMP', { any: ['json'] })).toMatchObject({ numericValue: null });
    expect(check('FILE', 'AB0E6F7A-3C1D-4E5F-8A9B-0C1D2E3F4A5B')).toMatchObject({
      value: 'ab0e6f7a-3c1d-4e5f-8a9b-0c1d2e3f4a5b',
    });
    // Only the shape: the activities module checks the inputs against the definition.
    expect(check('ACTIVITY', [{ fuel: 'diesel' }])).toMatchObject({ value: [{ fuel: 'diesel' }] });
  });

  it('refuse what each type does not allow, blaming the value', () => {
    const refused: [ElementType, unknown][] = [
      ['NUMBER', '1'],
      ['NUMBER', null],
      ['TEXT', 1],
      ['TEXT', 'x'.repeat(10_001)],
      ['BOOLEAN', 0],
      ['SELECT', 'z'],
      ['DATE', '2023-02-29'],
      ['DATE', '2023-1-01'],
      ['TIMESTAMP', 'x'.repeat(70_000)],
      ['FILE', 'report.pdf'],
      ['ACTIVITY', { fuel: 'diesel' }],
      ['ACTIVITY', Array.from({ length: 1001 }, () => ({}))],
    ];
    for (const [type, value] of refused) {
      expect(check(type, value), type).toMatchObject({ field: 'value', message: expect.any(String) });
    }
  });

  it('convert NUMBER values from the selected unit into the element’s unit', () => {
    const ctx = { element: element('NUMBER', { unit_id: kwh.id }), elementUnit: kwh, selectedUnit: mwh };
    expect(handlers.NUMBER.check(2.5, ctx)).toEqual({ value: 2500, originalValue: 2.5, numericValue: 2500 });
    const kg: UnitFactor = { id: 'u-kg', symbol: 'kg', dimension: 'mass', factor_to_base: 1 };
    expect(handlers.NUMBER.check(1, { ...ctx, selectedUnit: kg })).toMatchObject({ field: 'selectedUnitId' });
    expect(handlers.NUMBER.check(1, { ...ctx, elementUnit: undefined })).toMatchObject({
      field: 'selectedUnitId',
    });
  });
});

describe('periods', () => {
  const units = new Map<string, UnitFactor>();
  const ts = element('TIMESTAMP');
  const num = element('NUMBER');

  it('derive the TIMESTAMP period from the UTC month and check the UTC year', () => {
    const { planned, issues } = checkValues(
      [
        { elementId: ts.id, timestamp: '2026-01-01T00:30:00+01:00', value: 1 },
        { elementId: ts.id, timestamp: '2025-12-31T23:59:59Z', value: 2 },
      ],
      [ts, ts],
      { year: 2025, periodType: 'YEARLY', units, handlers },
    );
    expect(planned.map((p) => [p.periodUnit, p.timestamp?.toISOString()])).toEqual([
      [12, '2025-12-31T23:30:00.000Z'],
      [12, '2025-12-31T23:59:59.000Z'],
    ]);
    expect(issues).toMatchObject([]);
  });

  it('bound periodUnit by the form’s period type', () => {
    const run = (periodType: 'YEARLY' | 'QUARTERLY' | 'MONTHLY', periodUnit: number) =>
      checkValues([{ elementId: num.id, periodUnit, value: 1 }], [num], {
        year: 2025,
        periodType,
        units,
        handlers,
      }).issues.map(issueOf);
    expect(run('YEARLY', 1)).toEqual([]);
    expect(run('YEARLY', 2)).toMatchObject([{ path: 'values.0.periodUnit' }]);
    expect(run('QUARTERLY', 4)).toEqual([]);
    expect(run('QUARTERLY', 5)).toMatchObject([{ path: 'values.0.periodUnit' }]);
    expect(run('MONTHLY', 12)).toEqual([]);
  });

  it('plan a deletion for null, without checking the type', () => {
    const { planned } = checkValues([{ elementId: num.id, periodUnit: 1, value: null }], [num], {
      year: 2025,
      periodType: 'YEARLY',
      units,
      handlers,
    });
    expect(planned[0]).toMatchObject({ checked: null, periodUnit: 1 });
  });
});

describe('TIMESTAMP times (ISO 8601)', () => {
  const at = (text: string) => parseTimestamp(text)?.toISOString() ?? null;

  it('read a time without offset as UTC, a date alone as midnight UTC, and apply offsets', () => {
    expect(at('2025-04-01T10:00:00')).toBe('2025-04-01T10:00:00.000Z');
    expect(at('2025-04-01T10:00:00.25')).toBe('2025-04-01T10:00:00.250Z');
    expect(at('2025-04-01T10:00:00.123456')).toBe('2025-04-01T10:00:00.123Z');
    expect(at('2025-04-01T10:00')).toBe('2025-04-01T10:00:00.000Z');
    expect(at('2025-04-01')).toBe('2025-04-01T00:00:00.000Z');
    expect(at('2025-04-01T10:00:00Z')).toBe('2025-04-01T10:00:00.000Z');
    expect(at('2025-04-01t10:00:00z')).toBe('2025-04-01T10:00:00.000Z');
    expect(at('2025-04-01 10:00:00Z')).toBe('2025-04-01T10:00:00.000Z');
    expect(at('2025-04-01T10:00:00+02:00')).toBe('2025-04-01T08:00:00.000Z');
    expect(at('2025-04-01T10:00:00+0200')).toBe('2025-04-01T08:00:00.000Z');
    expect(at('2025-04-01T10:00:00-05')).toBe('2025-04-01T15:00:00.000Z');
    expect(at('2025-04-01T00:30:00+05:30')).toBe('2025-03-31T19:00:00.000Z');
    expect(at('2024-02-29T12:00:00Z')).toBe('2024-02-29T12:00:00.000Z');
  });

  it('refuse what is not an ISO 8601 time, or names no real one', () => {
    for (const text of [
      '',
      'yesterday',
      '2025-04-01T',
      '2025-04-01T10',
      '2025-4-1',
      '20250401T100000Z',
      '2025-04-01T10:00:00+2',
      '2025-04-01T10:00:00 +02:00',
      '2025-13-01',
      '2025-00-10',
      '2025-02-29',
      '2025-04-31T10:00:00Z',
      '2025-04-01T24:00:00Z',
      '2025-04-01T10:60:00Z',
      '2025-04-01T10:00:60Z',
      '2025-04-01T10:00:00+24:00',
      '2025-04-01T10:00:00+02:60',
      '1743501600000',
    ]) {
      expect(parseTimestamp(text), text).toBeNull();
    }
  });
});
