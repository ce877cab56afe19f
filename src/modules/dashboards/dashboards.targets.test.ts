import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { errorText } from '../../../test/helpers/errors.ts';
import {
  activateForm,
  assignSites,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { linearPath } from './dashboards.periods.ts';

/**
 * Targets as glide paths and CHILDREN breakdowns, against figures computed by hand.
 *
 * Sites: Group > Plant A, Plant B; Other (top level, outside the group). A monthly form with
 * electricity (kWh, SUM) and headcount (LAST). Values (submitted, counted by the default statuses):
 *
 * | site    | 2024 electricity | 2025 electricity | 2024 headcount (Jan) | 2025 headcount (Jan) |
 * |---------|------------------|------------------|----------------------|----------------------|
 * | Plant A | Jan 600          | Jan 500          | 10                   | 10                   |
 * | Plant B | Jan 400          | Mar 300          | 10                   | 10                   |
 * | Other   |                  | Jan 9000         |                      |                      |
 *
 * So the group used 1,000 kWh in 2024 and 800 kWh in 2025.
 */
const t = useTestApp();
let tenant: Tenant;
let token: string;
let formId: string;
const sites = { group: '', plantA: '', plantB: '', other: '' };
const ind = {
  elec: '',
  elecNoBase: '',
  head: '',
  intensity: '',
  scaled: '',
  monthlyOnly: '',
  quarterly: '',
  percentNoBase: '',
  nestedSum: '',
  affine: '',
  product: '',
};

async function submit(siteId: string, year: number, values: [string, number, number][]) {
  const res = await api(t, 'POST', '/form-submissions', {
    token,
    body: {
      formId,
      siteId,
      year,
      values: values.map(([elementKey, periodUnit, value]) => ({ elementKey, periodUnit, value })),
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function indicator(name: string, unit: string | null, expressionParts: unknown[]) {
  const units = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  const unitId = unit ? units.find((u) => u.symbol === unit)!.id : undefined;
  const res = await api(t, 'POST', '/indicators', {
    token,
    body: { name, ...(unitId ? { unitId } : {}), expressionParts },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as string;
}

async function storeIndicator(name: string, expressionParts: unknown[]) {
  const row = await t.database.tenant(tenant.organizationId, (tx) =>
    tx
      .insertInto('indicators')
      .values({
        organization_id: tenant.organizationId,
        name,
        label: null,
        description: null,
        unit_id: null,
        display_unit_id: null,
        expression_parts: JSON.stringify(expressionParts),
        preferred_dataset_item_name: null,
        preferred_dataset_item_dataset_id: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow(),
  );
  return row.id;
}

async function target(indicatorId: string, body: Record<string, unknown>) {
  const res = await api(t, 'POST', '/targets', { token, body: { indicatorId, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as string;
}

async function board(globalFilter: Record<string, unknown>, widgets: Record<string, unknown>[], extra = {}) {
  const res = await api(t, 'POST', '/dashboards', {
    token,
    body: { name: 'Targets', globalFilter, ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  for (const widget of widgets) {
    const added = await api(t, 'POST', `/dashboards/${res.body.id}/widgets`, {
      token,
      body: { title: 'W', ...widget },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
  }
  return res.body.id as string;
}

const data = async (id: string, as = token) => {
  const res = await api(t, 'GET', `/dashboards/${id}/data`, { token: as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

type Point = { period: string; value: number | null; formatted: string | null };
const byPeriod = (points: Point[]) => Object.fromEntries(points.map((p) => [p.period, p.value]));

beforeAll(async () => {
  tenant = await createTenant(t);
  token = tenant.owner.token;
  const org = tenant.organizationId;
  sites.group = await createSite(t, org, { name: 'Group' });
  sites.plantA = await createSite(t, org, { name: 'Plant A', parentId: sites.group });
  sites.plantB = await createSite(t, org, { name: 'Plant B', parentId: sites.group });
  sites.other = await createSite(t, org, { name: 'Other' });
  const kwh = await t.database.system((tx) =>
    tx
      .selectFrom('units')
      .select('id')
      .where('symbol', '=', 'kWh')
      .where('organization_id', 'is', null)
      .execute(),
  );
  const form = await createForm(t, tenant, {
    periodType: 'MONTHLY',
    elements: [
      { key: 'elec', label: 'Electricity', type: 'NUMBER', unitId: kwh[0]!.id },
      { key: 'head', label: 'Headcount', type: 'NUMBER', aggregation: 'LAST' },
    ],
  });
  formId = form.id;
  const element = Object.fromEntries(form.elements.map((e) => [e.key, e.id]));
  await activateForm(t, tenant, formId, Object.values(sites), [2024, 2025, 2026]);
  await submit(sites.plantA, 2024, [
    ['elec', 1, 600],
    ['head', 1, 10],
  ]);
  await submit(sites.plantB, 2024, [
    ['elec', 1, 400],
    ['head', 1, 10],
  ]);
  await submit(sites.plantA, 2025, [
    ['elec', 1, 500],
    ['head', 1, 10],
  ]);
  await submit(sites.plantB, 2025, [
    ['elec', 3, 300],
    ['head', 1, 10],
  ]);
  await submit(sites.other, 2025, [['elec', 1, 9000]]);

  const el = (value: string) => ({ type: 'formElement', value });
  const op = (value: string) => ({ type: 'operator', value });
  const num = (value: string) => ({ type: 'number', value });
  ind.elec = await indicator('Electricity', 'kWh', [el(element.elec!)]);
  ind.elecNoBase = await indicator('Electricity (2023 baseline)', 'kWh', [el(element.elec!)]);
  ind.head = await indicator('Headcount', null, [el(element.head!)]);
  ind.intensity = await indicator('Electricity per head', 'kWh', [
    el(element.elec!),
    op('/'),
    el(element.head!),
  ]);
  ind.scaled = await indicator('Electricity in MWh', 'MWh', [el(element.elec!), op('/'), num('1000')]);
  ind.monthlyOnly = await indicator('Electricity (monthly target)', 'kWh', [el(element.elec!)]);

  // -42 % of the 2024 baseline by 2030 (SBTi-style), for the whole organization.
  await target(ind.elec, {
    title: '-42% by 2030',
    baselineYear: 2024,
    targetEntries: [{ year: 2030, targetValue: -42, type: 'PERCENTAGE' }],
  });
  // A plant's own target, absolute: 300 kWh in 2030 from Plant A's 2024 actual.
  await target(ind.elec, {
    title: 'Plant A to 300',
    baselineYear: 2024,
    targetEntries: [{ year: 2030, targetValue: 300, siteId: sites.plantA }],
  });
  // A baseline year without data: only the 2030 point can be drawn.
  await target(ind.elecNoBase, {
    title: 'To 500',
    baselineYear: 2023,
    targetEntries: [{ year: 2030, targetValue: 500 }],
  });
  await target(ind.head, { title: 'Headcount 25', targetEntries: [{ year: 2025, targetValue: 25 }] });
  await target(ind.intensity, { title: 'Intensity 30', targetEntries: [{ year: 2025, targetValue: 30 }] });
  await target(ind.scaled, { title: 'Below 0.9 MWh', targetEntries: [{ year: 2025, targetValue: 0.9 }] });
  ind.quarterly = await indicator('Electricity (quarterly target)', 'kWh', [el(element.elec!)]);
  ind.percentNoBase = await indicator('Electricity (no baseline)', 'kWh', [el(element.elec!)]);
  await target(ind.quarterly, {
    title: 'Q1 300, year 1200',
    targetEntries: [
      { year: 2025, quarter: 1, targetValue: 300 },
      { year: 2025, targetValue: 1200 },
    ],
  });
  await target(ind.percentNoBase, {
    title: 'Minus 10 %',
    targetEntries: [{ year: 2025, targetValue: -10, type: 'PERCENTAGE' }],
  });
  // Nested: Electricity × 2 is still a sum over time; elec + 5 and elec × elec are not.
  ind.nestedSum = await indicator('Twice the electricity', 'kWh', [
    { type: 'indicator', value: ind.elec },
    op('*'),
    num('2'),
  ]);
  // (Stored directly: a unit check on POST /indicators may refuse them; stored ones still compute.)
  ind.affine = await storeIndicator('Electricity plus 5', [el(element.elec!), op('+'), num('5')]);
  ind.product = await storeIndicator('Electricity squared', [el(element.elec!), op('*'), el(element.elec!)]);
  for (const id of [ind.nestedSum, ind.affine, ind.product])
    await target(id, { title: 'Yearly 24', targetEntries: [{ year: 2025, targetValue: 24 }] });
  await target(ind.monthlyOnly, {
    title: 'January',
    targetEntries: [{ year: 2025, month: 1, targetValue: 1000 }],
  });
});

describe('a linear path', () => {
  it('interpolates between anchors and leaves years outside them out', () => {
    const path = linearPath(
      [
        { year: 2024, value: 1000 },
        { year: 2026, value: 900 },
        { year: 2030, value: 580 },
      ],
      [2023, 2024, 2025, 2026, 2027, 2030, 2031],
    );
    // 2025: halfway from 1000 to 900; 2027: 900 + (580 - 900) × 1/4 = 820.
    expect([...path]).toEqual([
      [2024, 1000],
      [2025, 950],
      [2026, 900],
      [2027, 820],
      [2030, 580],
    ]);
  });
});

describe('targets drawn as glide paths', () => {
  it('YEARLY: a point per year from the baseline’s actual value to the target (2024-2030)', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2024, endYear: 2030 }, [
      { type: 'LINE', indicatorIds: [ind.elec], config: { period: 'YEARLY', showTarget: true } },
    ]);
    const view = await data(id);
    const [series] = view.data[0].series;
    expect(view.data[0].issues).toEqual([]);
    // Baseline 2024 (group): 600 + 400 = 1000 kWh; 2030: 1000 × (1 - 0.42) = 580;
    // each year 70 kWh less: (1000 - 580) / 6 = 70. Plant A's own target is not on the total.
    expect(series.targets).toHaveLength(1);
    expect(series.targets[0]).toMatchObject({ name: '-42% by 2030', type: 'ABSOLUTE' });
    const path = byPeriod(series.targets[0].points);
    expect(Object.keys(path)).toEqual(['2024', '2025', '2026', '2027', '2028', '2029', '2030']);
    const expected = [1000, 930, 860, 790, 720, 650, 580];
    for (const [i, value] of expected.entries()) expect(path[String(2024 + i)]).toBeCloseTo(value, 9);
    expect(series.targets[0].points[1]).toMatchObject({ label: '2025', formatted: '930 kWh' });
    // The path starts at the series' own 2024 value.
    expect(series.points[0]).toMatchObject({ period: '2024', value: 1000 });
  });

  it('YEARLY: a baseline before the filter still anchors the path (2025-2027: 930, 860, 790)', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2025, endYear: 2027 }, [
      { type: 'BAR', indicatorIds: [ind.elec], config: { showTarget: true } },
    ]);
    const path = byPeriod((await data(id)).data[0].series[0].targets[0].points);
    expect(Object.keys(path)).toEqual(['2025', '2026', '2027']);
    expect(path['2025']).toBeCloseTo(930, 9);
    expect(path['2026']).toBeCloseTo(860, 9);
    expect(path['2027']).toBeCloseTo(790, 9);
  });

  it('a breakdown’s site target starts from that site’s baseline (Plant A: 600 to 300)', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2024, endYear: 2030 }, [
      { type: 'LINE', indicatorIds: [ind.elec], config: { sites: 'CHILDREN', showTarget: true } },
    ]);
    const view = await data(id);
    const plantA = view.data[0].series.find((s: { siteName: string }) => s.siteName === 'Plant A');
    // Plant A 2024: 600 kWh; 2030: 300; (600 - 300) / 6 = 50 a year: 2025 550, 2027 450.
    expect(plantA.targets.map((l: { name: string }) => l.name)).toEqual(['Plant A to 300']);
    const path = byPeriod(plantA.targets[0].points);
    expect(path['2024']).toBe(600);
    expect(path['2025']).toBeCloseTo(550, 9);
    expect(path['2027']).toBeCloseTo(450, 9);
    expect(path['2030']).toBe(300);
    // Plant B has no target of its own (the -42 % is the organization's, not a plant's).
    const plantB = view.data[0].series.find((s: { siteName: string }) => s.siteName === 'Plant B');
    expect(plantB.targets).toEqual([]);
  });

  it('MONTHLY and QUARTERLY: the year’s path value split evenly (2025: 930 / 12, 930 / 4)', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'LINE', indicatorIds: [ind.elec], config: { period: 'MONTHLY', showTarget: true } },
      { type: 'BAR', indicatorIds: [ind.elec], config: { period: 'QUARTERLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.scaled], config: { period: 'MONTHLY', showTarget: true } },
    ]);
    const view = await data(id);
    const monthly = view.data[0].series[0].targets[0].points as Point[];
    expect(monthly).toHaveLength(12);
    // 930 / 12 = 77.5 kWh a month; the twelve add up to the year's 930.
    for (const p of monthly) expect(p.value).toBeCloseTo(77.5, 9);
    expect(monthly[0]).toMatchObject({ period: '2025-01', formatted: '77.5 kWh' });
    const quarterly = view.data[1].series[0].targets[0].points as Point[];
    expect(quarterly.map((p) => p.period)).toEqual(['2025-Q1', '2025-Q2', '2025-Q3', '2025-Q4']);
    for (const p of quarterly) expect(p.value).toBeCloseTo(232.5, 9);
    // elec / 1000 is still a sum over time: 0.9 / 12 = 0.075 a month.
    expect(view.data[2].issues).toEqual([]);
    expect(view.data[2].series[0].targets[0].points[5].value).toBeCloseTo(0.075, 12);
    expect(view.data[0].issues).toEqual([]);
  });

  it('says why a target cannot be drawn: not a sum over time, no baseline value, no entry on the periods', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2024, endYear: 2030 }, [
      { type: 'LINE', indicatorIds: [ind.head], config: { period: 'MONTHLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.intensity], config: { period: 'QUARTERLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.elecNoBase], config: { period: 'YEARLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.monthlyOnly], config: { period: 'YEARLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.head], config: { period: 'YEARLY', showTarget: true } },
    ]);
    const view = await data(id);
    const [head, intensity, noBase, monthlyOnly, headYearly] = view.data;
    expect(head.series[0].targets).toEqual([]);
    expect(head.issues).toEqual([
      expect.objectContaining({
        type: 'targetNotAdditive',
        indicatorId: ind.head,
        targetId: expect.any(String),
      }),
    ]);
    expect(head.issues[0].message).toContain('Headcount is not a sum over time');
    expect(intensity.series[0].targets).toEqual([]);
    expect(intensity.issues.map((i: { type: string }) => i.type)).toEqual(['targetNotAdditive']);
    // No 2023 value: the 2030 point alone (500), and the reason.
    expect(noBase.series[0].targets[0].points).toEqual([
      { period: '2030', label: '2030', value: 500, formatted: '500 kWh' },
    ]);
    expect(noBase.issues).toEqual([expect.objectContaining({ type: 'targetBaselineMissing' })]);
    expect(noBase.issues[0].message).toContain('baseline year 2023');
    // A monthly entry is not added up into a year.
    expect(monthlyOnly.series[0].targets).toEqual([]);
    expect(monthlyOnly.issues).toEqual([expect.objectContaining({ type: 'targetNotShown' })]);
    expect(monthlyOnly.issues[0].message).toContain('finer than');
    // On a yearly widget the headcount target is drawn (no baseline: its own year only).
    expect(headYearly.series[0].targets[0].points).toEqual([
      { period: '2025', label: '2025', value: 25, formatted: '25' },
    ]);
    expect(headYearly.issues).toEqual([]);
  });
});

describe('targets split and percentages', () => {
  it('a quarterly entry is split into its months; the year is not split where a finer entry exists', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'LINE', indicatorIds: [ind.quarterly], config: { period: 'MONTHLY', showTarget: true } },
      { type: 'BAR', indicatorIds: [ind.quarterly], config: { period: 'QUARTERLY', showTarget: true } },
    ]);
    const view = await data(id);
    // Q1: 300 / 3 = 100 a month; the year's 1,200 is not spread, since 2025 has a quarterly entry.
    expect(byPeriod(view.data[0].series[0].targets[0].points)).toEqual({
      '2025-01': 100,
      '2025-02': 100,
      '2025-03': 100,
    });
    // Quarterly widget: Q1 as entered; the year again left alone (Q1 is entered).
    expect(byPeriod(view.data[1].series[0].targets[0].points)).toEqual({ '2025-Q1': 300 });
    expect(view.data[0].issues).toEqual([]);
  });

  it('a percentage without a baseline stays in % on a yearly widget, with the reason', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'LINE', indicatorIds: [ind.percentNoBase], config: { showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.percentNoBase], config: { period: 'MONTHLY', showTarget: true } },
    ]);
    const view = await data(id);
    expect(view.data[0].series[0].targets[0]).toMatchObject({
      type: 'PERCENTAGE',
      points: [{ period: '2025', value: -10, formatted: '-10 %' }],
    });
    expect(view.data[0].issues).toEqual([expect.objectContaining({ type: 'targetBaselineMissing' })]);
    expect(view.data[0].issues[0].message).toContain('no baseline year');
    // Never divided into months: a percentage is not a quantity. One issue says why.
    expect(view.data[1].series[0].targets).toEqual([]);
    expect(view.data[1].issues.map((i: { type: string }) => i.type)).toEqual(['targetBaselineMissing']);
  });

  it('splits a nested sum (24 / 12 = 2 a month), not an affine expression or a product of data', async () => {
    const id = await board({ siteIds: [sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'LINE', indicatorIds: [ind.nestedSum], config: { period: 'MONTHLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.affine], config: { period: 'MONTHLY', showTarget: true } },
      { type: 'LINE', indicatorIds: [ind.product], config: { period: 'MONTHLY', showTarget: true } },
    ]);
    const view = await data(id);
    const nested = view.data[0].series[0].targets[0].points as Point[];
    expect(nested).toHaveLength(12);
    for (const p of nested) expect(p.value).toBe(2);
    for (const widget of view.data.slice(1)) {
      expect(widget.series[0].targets).toEqual([]);
      expect(widget.issues.map((i: { type: string }) => i.type)).toEqual(['targetNotAdditive']);
    }
  });
});

describe('CHILDREN breakdowns', () => {
  it('one series per child of the filter’s site, a plant added later included', async () => {
    const id = await board(
      { siteIds: [sites.group], startYear: 2025, endYear: 2025 },
      [{ type: 'BAR', indicatorIds: [ind.elec], config: { sites: 'CHILDREN' } }],
      { isPublic: true, publicCanFilterSites: true },
    );
    const before = await data(id);
    expect(
      before.data[0].series.map((s: { siteName: string; total: Point }) => [s.siteName, s.total.value]),
    ).toEqual([
      ['Plant A', 500],
      ['Plant B', 300],
    ]);

    // A plant added through the API, with 2025 data: it shows without touching the dashboard.
    const created = await api(t, 'POST', '/sites', {
      token,
      body: { name: 'Plant C', parentId: sites.group },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const plantC = created.body.id as string;
    // (PUT /form-sites sets the form's whole site list.)
    await activateForm(t, tenant, formId, [...Object.values(sites), plantC], [2024, 2025, 2026]);
    await submit(plantC, 2025, [['elec', 2, 70]]);
    const after = await data(id);
    expect(
      after.data[0].series.map((s: { siteName: string; total: Point }) => [s.siteName, s.total.value]),
    ).toEqual([
      ['Plant A', 500],
      ['Plant B', 300],
      ['Plant C', 70],
    ]);

    // The public link: the same children (never Other, outside the filter's group)…
    const open = await api(t, 'GET', `/public/dashboards/${id}`);
    expect(open.status).toBe(200);
    expect(open.body.data[0].series.map((s: { siteName: string }) => s.siteName)).toEqual([
      'Plant A',
      'Plant B',
      'Plant C',
    ]);
    // …and a viewer's pick is broken down by its own children (a plant without any: itself).
    const picked = await api(t, 'GET', `/public/dashboards/${id}?siteIds=${sites.plantB}`);
    expect(
      picked.body.data[0].series.map((s: { siteName: string; total: Point }) => [s.siteName, s.total.value]),
    ).toEqual([['Plant B', 300]]);
    const outside = await api(t, 'GET', `/public/dashboards/${id}?siteIds=${sites.other}`);
    expect(outside.status).toBe(400);
  });

  it('without filter sites: the organization’s top-level sites; a member limited to a plant sees that plant only', async () => {
    const id = await board({ startYear: 2025, endYear: 2025 }, [
      { type: 'TABLE', indicatorIds: [ind.elec], config: { sites: 'CHILDREN' } },
    ]);
    const all = await data(id);
    // Group: 500 + 300 + 70 (Plant C, added above) = 870; Other: 9000.
    expect(
      all.data[0].series.map((s: { siteName: string; total: Point }) => [s.siteName, s.total.value]),
    ).toEqual([
      ['Group', 870],
      ['Other', 9000],
    ]);
    const grouped = await board({ siteIds: [sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'TABLE', indicatorIds: [ind.elec], config: { sites: 'CHILDREN' } },
    ]);
    await assignSites(t, tenant.organizationId, tenant.collector.userId, [sites.plantA]);
    for (const board of [id, grouped]) {
      const mine = await data(board, tenant.collector.token);
      expect(
        mine.data[0].series.map((s: { siteName: string; total: Point }) => [s.siteName, s.total.value]),
      ).toEqual([['Plant A', 500]]);
    }
  });

  it('a manager limited to Plant A publishes CHILDREN of Plant A only, never of the group', async () => {
    await assignSites(t, tenant.organizationId, tenant.manager.userId, [sites.plantA]);
    const as = tenant.manager.token;
    const refused = await api(t, 'POST', '/dashboards', {
      token: as,
      body: { name: 'Group by plant', isPublic: true, globalFilter: { siteIds: [sites.group] } },
    });
    expect(refused.status).toBe(403);
    const mine = await api(t, 'POST', '/dashboards', {
      token: as,
      body: {
        name: 'Plant A',
        isPublic: true,
        globalFilter: { siteIds: [sites.plantA], startYear: 2025, endYear: 2025 },
      },
    });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    const widget = await api(t, 'POST', `/dashboards/${mine.body.id}/widgets`, {
      token: as,
      body: { type: 'BAR', title: 'W', indicatorIds: [ind.elec], config: { sites: 'CHILDREN' } },
    });
    expect(widget.status, JSON.stringify(widget.body)).toBe(200);
    const open = await api(t, 'GET', `/public/dashboards/${mine.body.id}`);
    expect(
      open.body.data[0].series.map((s: { siteName: string; total: Point }) => [s.siteName, s.total.value]),
    ).toEqual([['Plant A', 500]]);
  });

  it('refuses an unknown config.sites with a 400 naming the field', async () => {
    const id = await board({}, []);
    const res = await api(t, 'POST', `/dashboards/${id}/widgets`, {
      token,
      body: { type: 'BAR', title: 'W', indicatorIds: [ind.elec], config: { sites: 'CHILD' } },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.issues)).toContain('config.sites');
    expect(errorText(res.body)).toMatch(/TOTAL|BREAKDOWN|CHILDREN/);
  });
});
