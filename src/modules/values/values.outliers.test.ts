import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createRulesWorld, type RulesWorld } from '../../../test/helpers/rules-world.ts';
import { outlierKind, referencePeriods } from './values.outliers.ts';

const t = useTestApp();
let w: RulesWorld;

beforeAll(async () => {
  w = await createRulesWorld(t);
});

/** Stores Electricity for (year, month) as the collector. */
async function store(year: number, periodUnit: number, value: number, comment?: string) {
  const res = await w.submit({
    year,
    values: [{ elementKey: 'elec', periodUnit, value, ...(comment ? { comment } : {}) }],
  });
  expect(res.status).toBe(200);
  return res.body;
}

const tail = 'Check the value, or explain it in a comment';

describe('outliers: the soft check of warnChangeFactor (issue 42)', () => {
  it('compares sizes, zeros and signs as documented', () => {
    expect(outlierKind(125, 40, 3)).toBe('more'); // 3.125
    expect(outlierKind(120, 40, 3)).toBeNull(); // exactly 3
    expect(outlierKind(13, 40, 3)).toBe('less'); // 40 / 13 = 3.08
    expect(outlierKind(0, 0, 3)).toBeNull();
    expect(outlierKind(5, 0, 3)).toBe('zero');
    expect(outlierKind(0, 5, 3)).toBe('zero');
    expect(outlierKind(-2, 2, 3)).toBe('sign');
    expect(outlierKind(-7, -2, 3)).toBe('more'); // 3.5
    expect(referencePeriods({ year: 2025, periodType: 'MONTHLY', periodUnit: 1 })).toEqual([
      { year: 2024, periodType: 'MONTHLY', periodUnit: 12 },
      { year: 2024, periodType: 'MONTHLY', periodUnit: 1 },
    ]);
    expect(referencePeriods({ year: 2025, periodType: 'QUARTERLY', periodUnit: 1 })[0]).toEqual({
      year: 2024,
      periodType: 'QUARTERLY',
      periodUnit: 4,
    });
  });

  it('flags a value more than the factor above the previous period, stores it anyway, and answers no issue at the factor', async () => {
    await store(2025, 2, 40);
    const flagged = await store(2025, 3, 125);
    expect(flagged.issues).toEqual([
      {
        type: 'outlier',
        path: 'values.0.value',
        message: `Electricity is 125 kilowatt-hour against 40 kilowatt-hour in February 2025: more than 3 times as much. ${tail}`,
        acknowledged: false,
        // 125 / 40 = 3.125 > 3, against February 2025's 40 kWh.
        value: 125,
        reference: { year: 2025, periodUnit: 2, value: 40 },
        factor: 3,
        change: 'more',
        unit: { id: w.units['kWh'], symbol: 'kWh', name: 'kilowatt-hour' },
      },
    ]);
    const stored = await api(t, 'GET', `/form-submissions/${flagged.id}`, {
      token: w.tenant.collector.token,
    });
    expect(
      stored.body.values.find((v: { elementKey: string; periodUnit: number }) => v.periodUnit === 3).value,
    ).toBe(125);
    // 120 / 40 = 3: not more than the factor.
    expect((await store(2025, 3, 120)).issues).toEqual([]);
  });

  it('flags against the same period last year when there is no previous period, and below the factor', async () => {
    await store(2024, 7, 900);
    // No June 2025; July 2024 is 900: 900 / 250 = 3.6.
    const flagged = await store(2025, 7, 250);
    expect(flagged.issues).toEqual([
      {
        type: 'outlier',
        path: 'values.0.value',
        message: `Electricity is 250 kilowatt-hour against 900 kilowatt-hour in July 2024: less than 1/3 of it. ${tail}`,
        acknowledged: false,
        value: 250,
        reference: { year: 2024, periodUnit: 7, value: 900 },
        factor: 3,
        change: 'less',
        unit: { id: w.units['kWh'], symbol: 'kWh', name: 'kilowatt-hour' },
      },
    ]);
  });

  it('compares January with December of the year before', async () => {
    await store(2024, 12, 10);
    const flagged = await store(2025, 1, 31); // 3.1
    expect(flagged.issues[0].message).toBe(
      `Electricity is 31 kilowatt-hour against 10 kilowatt-hour in December 2024: more than 3 times as much. ${tail}`,
    );
  });

  it('flags a value after a zero, and uses a value of the same request as the reference', async () => {
    await store(2025, 9, 0);
    expect((await store(2025, 10, 5)).issues[0].message).toBe(
      `Electricity is 5 kilowatt-hour against 0 kilowatt-hour in September 2025: it was zero. ${tail}`,
    );
    const both = await w.submit({
      values: [
        { elementKey: 'elec', periodUnit: 11, value: 10 },
        { elementKey: 'elec', periodUnit: 12, value: 100 },
      ],
    });
    expect(both.status).toBe(200);
    expect(both.body.issues).toEqual([
      {
        type: 'outlier',
        path: 'values.1.value',
        message: `Electricity is 100 kilowatt-hour against 10 kilowatt-hour in November 2025: more than 3 times as much. ${tail}`,
        acknowledged: false,
        // The reference is November's 10 of the same request, not a stored value.
        value: 100,
        reference: { year: 2025, periodUnit: 11, value: 10 },
        factor: 3,
        change: 'more',
        unit: { id: w.units['kWh'], symbol: 'kWh', name: 'kilowatt-hour' },
      },
    ]);
  });

  it('gives the compared values in the element’s unit when the value was sent in another unit', async () => {
    await store(2024, 2, 40);
    // 0.2 MWh = 200 kWh; 200 / 40 = 5 > 3.
    const res = await w.submit(
      {
        year: 2024,
        values: [{ elementKey: 'elec', periodUnit: 3, value: 0.2, selectedUnitId: w.units['MWh'] }],
      },
      '/form-submissions/check',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.issues).toEqual([
      {
        type: 'outlier',
        path: 'values.0.value',
        message: `Electricity is 200 kilowatt-hour against 40 kilowatt-hour in February 2024: more than 3 times as much. ${tail}`,
        acknowledged: false,
        value: 200,
        reference: { year: 2024, periodUnit: 2, value: 40 },
        factor: 3,
        change: 'more',
        unit: { id: w.units['kWh'], symbol: 'kWh', name: 'kilowatt-hour' },
      },
    ]);
  });

  it('counts an outlier with a comment as acknowledged and keeps the comment in the value’s history', async () => {
    await store(2025, 5, 100);
    const body = await store(2025, 6, 400, 'New furnace commissioned in June');
    expect(body.issues).toEqual([expect.objectContaining({ type: 'outlier', acknowledged: true })]);
    const valueId = body.values[0].formElementSubmissionId;
    const history = await api(t, 'GET', `/form-submissions/values/${valueId}/history`, {
      token: w.tenant.collector.token,
    });
    expect(history.status).toBe(200);
    expect(
      history.body.map((h: { action: string; comment: string | null }) => [h.action, h.comment]),
    ).toEqual([['CREATE', 'New furnace commissioned in June']]);
  });

  it('answers the outliers of POST /form-submissions/check without storing the value', async () => {
    await store(2025, 8, 10);
    const res = await w.submit(
      { values: [{ elementKey: 'elec', periodUnit: 9, value: 50 }] },
      '/form-submissions/check',
    );
    expect(res.status).toBe(200);
    // September 2025 holds 0 (stored above); August 2025 is 10: 50 / 10 = 5.
    expect(res.body.issues).toEqual([
      {
        type: 'outlier',
        path: 'values.0.value',
        message: `Electricity is 50 kilowatt-hour against 10 kilowatt-hour in August 2025: more than 3 times as much. ${tail}`,
        acknowledged: false,
        value: 50,
        reference: { year: 2025, periodUnit: 8, value: 10 },
        factor: 3,
        change: 'more',
        unit: { id: w.units['kWh'], symbol: 'kWh', name: 'kilowatt-hour' },
      },
    ]);
    const september = await t.database.system((tx) =>
      tx
        .selectFrom('form_element_submissions')
        .select('numeric_value')
        .where('organization_id', '=', w.tenant.organizationId)
        .where('year', '=', 2025)
        .where('period_unit', '=', 9)
        .executeTakeFirstOrThrow(),
    );
    expect(september.numeric_value).toBe(0);
  });

  it('answers each of concurrent submissions with its own outliers, and stores them all', async () => {
    await w.submit({
      year: 2024,
      values: [1, 2, 3, 4, 5, 6].map((p) => ({ elementKey: 'head', periodUnit: p, value: 1 })),
    });
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((p) =>
        w.submit({
          year: 2024,
          values: [
            { elementKey: 'elec', periodUnit: p, value: p * 10 },
            { elementKey: 'head', periodUnit: p, value: p },
          ],
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Each month's reference is the month before as stored before that request (concurrent
    // requests may or may not see each other), so only the shape is certain: at most one issue each.
    for (const r of results) expect(r.body.issues.length).toBeLessThanOrEqual(1);
    const stored = await t.database.system((tx) =>
      tx
        .selectFrom('form_element_submissions as v')
        .innerJoin('form_elements as e', 'e.id', 'v.element_id')
        .select(['v.period_unit', 'v.numeric_value'])
        .where('v.organization_id', '=', w.tenant.organizationId)
        .where('v.year', '=', 2024)
        .where('e.key', '=', 'elec')
        .where('v.period_unit', '<=', 6)
        .orderBy('v.period_unit')
        .execute(),
    );
    expect(stored.map((s) => s.numeric_value)).toEqual([10, 20, 30, 40, 50, 60]);
  });
});
