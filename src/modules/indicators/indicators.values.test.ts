import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  createIndicatorWorld,
  el,
  type IndicatorWorld,
  ind,
  op,
  paren,
} from '../../../test/helpers/indicator-world.ts';

const t = useTestApp();
let w: IndicatorWorld;
const ids: Record<string, string> = {};

async function make(name: string, body: Record<string, unknown>) {
  const res = await w.create({ name, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  ids[name] = res.body.id;
  return res.body.id as string;
}

beforeAll(async () => {
  w = await createIndicatorWorld(t);
  await make('scope2', {
    label: 'Scope 2 emissions',
    unitId: w.units['kgCO2e'],
    displayUnitId: w.units['tCO2e'],
    expressionParts: [el(w.element.elec), op('*'), w.gridKey],
  });
  await make('elec', { unitId: w.units['kWh'], expressionParts: [el(w.element.elec)] });
  await make('perHead', { expressionParts: [el(w.element.elec), op('/'), el(w.element.head)] });
  await make('area', { expressionParts: [el(w.element.area)] });
  await make('perArea', { expressionParts: [el(w.element.elec), op('/'), el(w.element.area)] });
  await make('gasEm', {
    unitId: w.units['kgCO2e'],
    expressionParts: [el(w.element.gas), op('*'), { type: 'datasetItem', value: w.gasFactorId }],
  });
  await make('total', {
    unitId: w.units['kgCO2e'],
    expressionParts: [ind(ids['scope2']!), op('+'), ind(ids['gasEm']!)],
  });
  await make('negated', {
    expressionParts: [
      op('-'),
      paren('('),
      el(w.element.elec),
      op('-'),
      el(w.element.head),
      paren(')'),
      op('*'),
      { type: 'number', value: '2' },
    ],
  });
});

const value = async (name: string, scope: Record<string, unknown> = {}, token?: string) => {
  const res = await w.values({ indicatorIds: [ids[name]], year: 2025, ...scope }, token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results[ids[name]!];
};

describe('POST /indicators/current-values', () => {
  it('multiplies the group’s electricity (descendants included) by the grid factor, shown in tCO2e', async () => {
    // Plant 1 (1000) + plant 2 (1000) + line 1 (50) = 2050 kWh; × 0.5 = 1025 kgCO2e.
    expect(await value('scope2', { siteIds: [w.sites.group] })).toEqual({
      value: 1025,
      unit: 'kgCO2e',
      displayValue: 1.025,
      displayUnit: 'tCO2e',
      formatted: '1.03 tCO2e',
      issues: [],
    });
    // Plant 1 and its line: 1050 kWh.
    expect((await value('scope2', { siteIds: [w.sites.plant1] })).value).toBe(525);
    // Every site: 2057 kWh.
    expect((await value('elec')).value).toBe(2057);
  });

  it('restricts to periods, years and statuses', async () => {
    // Q1: plant 1 600 + plant 2 1000 + line 1 50.
    expect((await value('elec', { siteIds: [w.sites.group], periodUnits: [1, 2, 3] })).value).toBe(1650);
    // APPROVED only: plant 1 month 1 (100) and plant 2 month 1 (1000).
    const approved = await value('scope2', { siteIds: [w.sites.group], statuses: ['APPROVED'] });
    expect(approved).toMatchObject({ value: 550, displayValue: 0.55, formatted: '0.55 tCO2e' });
    // 2024 alone, and 2024..2025 together.
    expect((await value('elec', { year: undefined, startYear: 2024, endYear: 2024 })).value).toBe(9999);
    expect((await value('elec', { year: undefined, startYear: 2024, endYear: 2025 })).value).toBe(12056);
  });

  it('follows the organization’s default statuses', async () => {
    const patched = await api(t, 'PATCH', '/organizations/current', {
      token: w.tenant.owner.token,
      body: { defaultStatuses: ['APPROVED'] },
    });
    expect(patched.status).toBe(200);
    expect((await value('elec', { siteIds: [w.sites.group] })).value).toBe(1100);
    await api(t, 'PATCH', '/organizations/current', {
      token: w.tenant.owner.token,
      body: { defaultStatuses: ['COMPLETED', 'APPROVED'] },
    });
  });

  it('divides sums, not ratios: the year’s kWh over the current headcount (LAST)', async () => {
    // Headcount: plant 1’s latest month (3: 12) + plant 2’s latest (2: 5) = 17, not 10 + 12 + 5.
    expect((await value('perHead', { siteIds: [w.sites.group] })).value).toBeCloseTo(2050 / 17, 12);
    // AVERAGE: plant 1’s mean of the months with data, (100 + 200) / 2.
    expect((await value('area', { siteIds: [w.sites.plant1] })).value).toBe(150);
    // Q1 only: headcount 12 + 5, electricity 1650.
    expect((await value('perHead', { siteIds: [w.sites.group], periodUnits: [1, 2, 3] })).value).toBeCloseTo(
      1650 / 17,
      12,
    );
    // Months 1 and 2: plant 1’s latest headcount is month 1’s 10.
    expect((await value('perHead', { siteIds: [w.sites.plant1], periodUnits: [1, 2] })).value).toBeCloseTo(
      350 / 10,
      12,
    );
  });

  it('applies precedence and unary minus: -(elec - head) * 2', async () => {
    // Plant 2: electricity 1000, headcount 5.
    expect((await value('negated', { siteIds: [w.sites.plant2] })).value).toBe(-1990);
  });

  it('converts MWh into the coefficient’s kWh, and explains how', async () => {
    const res = await value('gasEm', { siteIds: [w.sites.group], explain: true });
    // 2 MWh = 2000 kWh × 0.2 = 400.
    expect(res.value).toBe(400);
    expect(res.explain).toMatchObject({
      scope: {
        siteIds: [w.sites.group],
        siteCount: 4,
        fromYear: 2025,
        toYear: 2025,
        statuses: ['COMPLETED', 'APPROVED'],
      },
      operands: [{ partIndex: 0, value: 2, unit: 'MWh', aggregation: 'SUM', valueCount: 1, siteCount: 1 }],
      coefficients: [
        {
          partIndex: 2,
          datasetItemId: w.gasFactorId,
          year: 2025,
          value: 0.2,
          unit: 'kgCO2e',
          inputUnit: 'kWh',
        },
      ],
      conversions: [{ partIndex: 0, from: 'MWh', to: 'kWh', factor: 1000, before: 2, after: 2000 }],
    });
  });

  it('explains the grid factor it took for the scope’s year', async () => {
    const res = await value('scope2', { siteIds: [w.sites.plant2], explain: true });
    expect(res.explain.coefficients).toMatchObject([
      { key: 'grid', year: 2025, value: 0.5, datasetName: 'Grid factors' },
    ]);
    // 2019 has its own factor (0.9), but no data.
    const old = await value('scope2', { year: 2019, explain: true });
    expect(old).toMatchObject({ value: null, formatted: null, issues: [{ type: 'noData' }] });
  });

  it('evaluates nested indicators in the same scope', async () => {
    // Group: scope 2 (1025) + gas (400).
    expect((await value('total', { siteIds: [w.sites.group] })).value).toBe(1425);
    // Plant 2 has no gas: the gas indicator has no data and counts as 0.
    expect((await value('total', { siteIds: [w.sites.plant2] })).value).toBe(500);
  });

  it('answers null with an issue for missing data and division by zero, never NaN', async () => {
    // Other site, 2024: nothing at all.
    expect(await value('scope2', { siteIds: [w.sites.other], year: 2024 })).toMatchObject({
      value: null,
      displayValue: null,
      issues: [{ type: 'noData' }],
    });
    // Plant 2 has electricity but no area: 1000 / 0.
    expect(await value('perArea', { siteIds: [w.sites.plant2] })).toMatchObject({
      value: null,
      issues: [{ type: 'divisionByZero', partIndex: 1 }],
    });
  });

  it('limits the scope to the caller’s sites: default, descendants, 403 outside, 400 unknown', async () => {
    const token = w.tenant.collector.token;
    // Assigned plant 1: plant 1 and line 1.
    expect((await value('elec', {}, token)).value).toBe(1050);
    expect((await value('elec', { siteIds: [w.sites.line1] }, token)).value).toBe(50);
    const outside = await w.values(
      { indicatorIds: [ids['elec']], siteIds: [w.sites.group], year: 2025 },
      token,
    );
    expect(outside.status).toBe(403);
    const unknown = await w.values({ indicatorIds: [ids['elec']], siteIds: ['nope'], year: 2025 });
    expect(unknown).toMatchObject({ status: 400, body: { issues: [{ path: 'siteIds.0' }] } });
    const badIndicator = await w.values({ indicatorIds: [ids['elec'], 'x'], year: 2025 });
    expect(badIndicator).toMatchObject({ status: 400, body: { issues: [{ path: 'indicatorIds.1' }] } });
    const both = await w.values({ indicatorIds: [ids['elec']], year: 2025, startYear: 2024 });
    expect(both.status).toBe(400);
  });

  it('answers many indicators in one call', async () => {
    const res = await w.values({
      indicatorIds: [ids['scope2'], ids['gasEm'], ids['total']],
      year: 2025,
      siteIds: [w.sites.group],
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.results).sort()).toEqual([ids['scope2'], ids['gasEm'], ids['total']].sort());
    expect(res.body.results[ids['total']!].value).toBe(1425);
  });
});
