import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { activateForm, createForm } from '../../../test/helpers/factories.ts';
import { createIndicatorWorld, el, type IndicatorWorld, op } from '../../../test/helpers/indicator-world.ts';
import type { Caller } from '../../domain/caller.ts';
import { AppError } from '../../domain/errors.ts';
import { indicatorSeries, type SeriesRequest } from './indicators.series.ts';

const t = useTestApp();
let w: IndicatorWorld;
const ids: Record<string, string> = {};

async function make(name: string, body: Record<string, unknown>) {
  const res = await w.create({ name, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  ids[name] = res.body.id;
}

/**
 * Besides the world's monthly form (see indicator-world.ts): a QUARTERLY form with water (SUM)
 * on plant 2 for 2025 — Q1: 30, Q2: 60 — and a YEARLY form with staff (LAST) — 2025: 20.
 */
beforeAll(async () => {
  w = await createIndicatorWorld(t);
  const quarterly = await createForm(t, w.tenant, {
    periodType: 'QUARTERLY',
    elements: [{ key: 'water', label: 'Water', type: 'NUMBER' }],
  });
  const yearly = await createForm(t, w.tenant, {
    periodType: 'YEARLY',
    elements: [{ key: 'staff', label: 'Staff', type: 'NUMBER', aggregation: 'LAST' }],
  });
  for (const [form, values] of [
    [
      quarterly,
      [
        ['water', 1, 30],
        ['water', 2, 60],
      ],
    ],
    [yearly, [['staff', 1, 20]]],
  ] as const) {
    await activateForm(t, w.tenant, form.id, [w.sites.plant2], [2025]);
    const res = await api(t, 'POST', '/form-submissions', {
      token: w.tenant.owner.token,
      body: {
        formId: form.id,
        siteId: w.sites.plant2,
        year: 2025,
        values: values.map(([elementKey, periodUnit, value]) => ({ elementKey, periodUnit, value })),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const water = quarterly.elements[0]!.id;
  const staff = yearly.elements[0]!.id;
  await make('elec', { unitId: w.units['kWh'], expressionParts: [el(w.element.elec)] });
  await make('head', { expressionParts: [el(w.element.head)] });
  await make('perHead', { expressionParts: [el(w.element.elec), op('/'), el(w.element.head)] });
  await make('scope2', {
    unitId: w.units['kgCO2e'],
    displayUnitId: w.units['tCO2e'],
    expressionParts: [el(w.element.elec), op('*'), w.gridKey],
  });
  await make('water', { expressionParts: [el(water)] });
  await make('staff', { expressionParts: [el(staff)] });
  await make('waterPerStaff', { expressionParts: [el(water), op('/'), el(staff)] });
});

const org = () => ({ organizationId: w.tenant.organizationId });
const collector = (): Caller => ({
  userId: w.tenant.collector.userId,
  organizationId: w.tenant.organizationId,
  role: 'COLLECTOR',
  isAdmin: false,
  email: w.tenant.collector.email,
  name: 'Collector',
  image: null,
  credential: { kind: 'token', id: 'test' },
});

const series = (
  names: string[],
  req: Partial<SeriesRequest> & Pick<SeriesRequest, 'grouping'>,
  viewer: Caller | { organizationId: string } = org(),
) =>
  t.database.tenant(w.tenant.organizationId, (tx) =>
    indicatorSeries(
      tx,
      viewer,
      { indicatorIds: names.map((n) => ids[n] ?? n), fromYear: 2025, toYear: 2025, ...req },
      new Date('2026-06-01T00:00:00Z'),
    ),
  );

/** Expects the promise to fail with an AppError of `status`, naming `path` in an issue. */
async function expectAppError(promise: Promise<unknown>, status: number, path?: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).status).toBe(status);
  if (path) expect((error as AppError).issues?.map((i) => i.path)).toContain(path);
}

/** The points as [period, value] pairs. */
const values = (points: { period: string; value: { value: number | null } }[]) =>
  points.map((p) => [p.period, p.value.value]);

describe('indicatorSeries', () => {
  it('adds every site’s electricity up per quarter, with null and noData where nothing', async () => {
    const [result] = await series(['elec'], { grouping: 'QUARTERLY' });
    // Q1: plant 1 100 + 200 + 300, plant 2 1000, line 1 50, other 7; Q2: plant 1’s April.
    expect(result!.indicatorId).toBe(ids['elec']);
    expect(result!.siteId).toBeUndefined();
    expect(result!.total).toMatchObject({ value: 2057, unit: 'kWh', formatted: '2,057 kWh', issues: [] });
    expect(values(result!.points)).toEqual([
      ['2025-Q1', 1657],
      ['2025-Q2', 400],
      ['2025-Q3', null],
      ['2025-Q4', null],
    ]);
    expect(result!.points[2]!.value).toMatchObject({ formatted: null, issues: [{ type: 'noData' }] });
  });

  it('divides the month’s sums, with each site’s latest headcount of the period (LAST)', async () => {
    const [perHead] = await series(['perHead'], { grouping: 'MONTHLY', siteIds: [w.sites.group] });
    // The year: 2050 kWh over 12 (plant 1, March) + 5 (plant 2) heads.
    expect(perHead!.total.value).toBeCloseTo(2050 / 17, 12);
    const points = values(perHead!.points);
    expect(points).toHaveLength(12);
    // January: (100 + 1000) / 10; February: (200 + 50) / 5; March: 300 / 12.
    expect(points.slice(0, 3)).toEqual([
      ['2025-01', 110],
      ['2025-02', 50],
      ['2025-03', 25],
    ]);
    // April: 400 kWh but no headcount.
    expect(perHead!.points[3]!.value).toMatchObject({ value: null, issues: [{ type: 'divisionByZero' }] });
    expect(perHead!.points[4]!.value).toMatchObject({ value: null, issues: [{ type: 'noData' }] });
    const [head] = await series(['head'], { grouping: 'QUARTERLY', siteIds: [w.sites.group] });
    // Q1: plant 1’s March (12) + plant 2’s February (5), not 10 + 12 + 5.
    expect(values(head!.points).slice(0, 2)).toEqual([
      ['2025-Q1', 17],
      ['2025-Q2', null],
    ]);
  });

  it('takes each year’s coefficient per year and shows display units', async () => {
    const [result] = await series(['scope2'], {
      grouping: 'YEARLY',
      fromYear: 2024,
      toYear: 2025,
      siteIds: [w.sites.plant1],
    });
    // 2024: 9999 kWh × 0.9 (the latest factor not after 2024 is 2019’s); 2025: 1050 × 0.5.
    expect(result!.points.map((p) => [p.period, p.value.value, p.value.formatted])).toEqual([
      ['2024', 9999 * 0.9, '9 tCO2e'],
      ['2025', 525, '0.525 tCO2e'],
    ]);
    // The total takes the last year’s factor, as current values do: 11049 × 0.5.
    expect(result!.total).toMatchObject({ value: 5524.5, unit: 'kgCO2e', formatted: '5.52 tCO2e' });
  });

  it('places quarterly and yearly values by their period’s first month', async () => {
    const [water, staff, ratio] = await series(['water', 'staff', 'waterPerStaff'], {
      grouping: 'MONTHLY',
      siteIds: [w.sites.plant2],
    });
    const monthly = (r: typeof water) => values(r!.points).filter(([, v]) => v !== null);
    expect(monthly(water)).toEqual([
      ['2025-01', 30],
      ['2025-04', 60],
    ]);
    expect(monthly(staff)).toEqual([['2025-01', 20]]);
    expect(water!.total.value).toBe(90);
    // The year: 90 / 20.
    expect(ratio!.total.value).toBe(4.5);
    const [byQuarter] = await series(['waterPerStaff'], { grouping: 'QUARTERLY', siteIds: [w.sites.plant2] });
    expect(byQuarter!.points[0]).toEqual({
      period: '2025-Q1',
      value: expect.objectContaining({ value: 1.5, issues: [] }),
    });
    expect(byQuarter!.points[1]!.value).toMatchObject({ value: null, issues: [{ type: 'divisionByZero' }] });
  });

  it('answers one result per requested site with bySite, and only the total for TOTAL', async () => {
    const results = await series(['elec', 'head'], {
      grouping: 'TOTAL',
      bySite: true,
      siteIds: [w.sites.group, w.sites.plant1],
    });
    expect(results.map((r) => [r.indicatorId, r.siteId, r.total.value, r.points.length])).toEqual([
      [ids['elec'], w.sites.group, 2050, 0],
      [ids['head'], w.sites.group, 17, 0],
      [ids['elec'], w.sites.plant1, 1050, 0],
      [ids['head'], w.sites.plant1, 12, 0],
    ]);
    const [group, plant1] = await series(['elec'], {
      grouping: 'YEARLY',
      fromYear: 2024,
      bySite: true,
      siteIds: [w.sites.group, w.sites.plant1],
    });
    expect(values(group!.points)).toEqual([
      ['2024', 9999],
      ['2025', 2050],
    ]);
    expect(values(plant1!.points)).toEqual([
      ['2024', 9999],
      ['2025', 1050],
    ]);
  });

  it('counts a value when its period starts within startDate..endDate', async () => {
    const [result] = await series(['elec'], {
      grouping: 'MONTHLY',
      startDate: '2025-02-15',
      endDate: '2025-04-30',
    });
    // February starts before the 15th: March and April only.
    expect(values(result!.points)).toEqual([
      ['2025-03', 300],
      ['2025-04', 400],
    ]);
    expect(result!.total.value).toBe(700);
    const [quarters] = await series(['elec'], { grouping: 'QUARTERLY', endDate: '2025-03-01' });
    expect(values(quarters!.points)).toEqual([['2025-Q1', 1657]]);
  });

  it('follows statuses, or the organization’s default', async () => {
    const [approved] = await series(['elec'], { grouping: 'QUARTERLY', statuses: ['APPROVED'] });
    expect(approved!.total.value).toBe(1100);
    expect(values(approved!.points)[0]).toEqual(['2025-Q1', 1100]);
  });

  it('limits a caller to its sites: default, 403 outside, 400 for bad requests', async () => {
    const [mine] = await series(['elec'], { grouping: 'YEARLY' }, collector());
    // Plant 1 and its line: 1000 + 50.
    expect(mine!.total.value).toBe(1050);
    await expectAppError(
      series(['elec'], { grouping: 'YEARLY', siteIds: [w.sites.group] }, collector()),
      403,
    );
    await expectAppError(series(['nope'], { grouping: 'YEARLY' }), 400, 'indicatorIds.0');
    await expectAppError(series(['elec'], { grouping: 'YEARLY', siteIds: ['x'] }), 400, 'siteIds.0');
    await expectAppError(series(['elec'], { grouping: 'YEARLY', bySite: true }), 400, 'siteIds');
    await expectAppError(series(['elec'], { grouping: 'YEARLY', fromYear: 2026 }), 400, 'toYear');
    await expectAppError(series(['elec'], { grouping: 'YEARLY', startDate: '2025-02-30' }), 400, 'startDate');
    await expectAppError(
      series(['elec'], { grouping: 'YEARLY', startDate: '2025-03-01', endDate: '2025-02-01' }),
      400,
      'endDate',
    );
  });

  it('leaves out the values of a deactivated form-site, and counts them again once reactivated', async () => {
    const setSites = (siteIds: string[]) =>
      api(t, 'PUT', '/form-sites', {
        token: w.tenant.owner.token,
        body: { formId: w.formId, siteIds, years: [2025] },
      });
    const { group, plant1, plant2, line1, other } = w.sites;
    expect((await setSites([group, plant1, plant2, line1])).status).toBe(200);
    try {
      const [result] = await series(['elec'], { grouping: 'QUARTERLY' });
      // Every site but the other one (7 kWh in January): 2050.
      expect(result!.total.value).toBe(2050);
      expect(values(result!.points)[0]).toEqual(['2025-Q1', 1650]);
      const current = await w.values({ indicatorIds: [ids['elec']], year: 2025 });
      expect(current.body.results[ids['elec']!].value).toBe(2050);
    } finally {
      expect((await setSites([group, plant1, plant2, line1, other])).status).toBe(200);
    }
    const [again] = await series(['elec'], { grouping: 'TOTAL' });
    expect(again!.total.value).toBe(2057);
  });

  it('counts a value a writer stored without its site and year (filled from its submission)', async () => {
    const org = w.tenant.organizationId;
    const id = await t.database.system(async (tx) => {
      await sql`select set_config('app.organization_id', ${org}, true)`.execute(tx);
      const { rows } = await sql<{ id: string }>`
        insert into form_element_submissions
          (organization_id, form_submission_id, element_id, period_unit, value, numeric_value, user_id)
        select v.organization_id, v.form_submission_id, v.element_id, 6, '3', 3, v.user_id
          from form_element_submissions v
         where v.organization_id = ${org} and v.site_id = ${w.sites.plant2} and v.element_id = ${w.element.elec}
        returning id`.execute(tx);
      return rows[0]!.id;
    });
    try {
      const [result] = await series(['elec'], { grouping: 'MONTHLY', siteIds: [w.sites.plant2] });
      // Plant 2: January’s 1000, and June’s 3 stored here.
      expect(values(result!.points).filter(([, v]) => v !== null)).toEqual([
        ['2025-01', 1000],
        ['2025-06', 3],
      ]);
    } finally {
      await t.database.system(async (tx) => {
        await sql`select set_config('app.organization_id', ${org}, true)`.execute(tx);
        await sql`update form_element_submissions set deleted_at = now() where id = ${id}`.execute(tx);
      });
    }
  });
});
