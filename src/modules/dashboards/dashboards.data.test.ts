import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createSite } from '../../../test/helpers/factories.ts';
import { createIndicatorWorld, el, type IndicatorWorld } from '../../../test/helpers/indicator-world.ts';
import { seriesPeriodLabel } from '../targets/targets.periods.ts';

/**
 * Values of the indicator world (test/helpers/indicator-world.ts), electricity in kWh, 2025:
 * plant 1: Jan 100 (APPROVED), Feb 200, Mar 300, Apr 400; plant 2: Jan 1000 (APPROVED);
 * line 1 (under plant 1): Feb 50; other: Jan 7. 2024: plant 1 Jan 9999. Group = plants 1 and 2.
 */
const t = useTestApp();
let w: IndicatorWorld;
let indicatorId: string;

beforeAll(async () => {
  w = await createIndicatorWorld(t);
  const res = await w.create({
    name: 'elec',
    label: 'Electricity',
    unitId: w.units['kWh'],
    expressionParts: [el(w.element.elec)],
  });
  indicatorId = res.body.id;
  const target = await api(t, 'POST', '/targets', {
    token: w.tenant.owner.token,
    body: {
      indicatorId,
      title: 'Less power',
      baselineYear: 2024,
      targetEntries: [
        { year: 2025, month: 1, targetValue: 1000 },
        { year: 2025, month: 2, targetValue: 900 },
        { year: 2025, targetValue: 3000 },
        { year: 2025, targetValue: -50, type: 'PERCENTAGE' },
        { year: 2030, targetValue: 100 },
      ],
    },
  });
  expect(target.status, JSON.stringify(target.body)).toBe(200);
});

async function board(globalFilter: Record<string, unknown>, widgets: Record<string, unknown>[], extra = {}) {
  const res = await api(t, 'POST', '/dashboards', {
    token: w.tenant.owner.token,
    body: { name: 'Power', globalFilter, ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  for (const widget of widgets) {
    const added = await api(t, 'POST', `/dashboards/${res.body.id}/widgets`, {
      token: w.tenant.owner.token,
      body: { title: 'W', indicatorIds: [indicatorId], ...widget },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
  }
  return res.body.id as string;
}

const data = async (id: string, token = w.tenant.owner.token) => {
  const res = await api(t, 'GET', `/dashboards/${id}/data`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

const values = (points: { value: number | null }[]) => points.map((p) => p.value);

describe('dashboard data', () => {
  it('labels periods', () => {
    expect(['2026', '2026-Q1', '2026-03', '2025-12'].map(seriesPeriodLabel)).toEqual([
      '2026',
      'Q1 2026',
      'Mar 2026',
      'Dec 2025',
    ]);
  });

  it('a VALUE widget: the total over the filter’s sites with descendants (2050 kWh), no points', async () => {
    const id = await board({ siteIds: [w.sites.group], startYear: 2025, endYear: 2025 }, [{ type: 'VALUE' }]);
    const view = await data(id);
    const [series] = view.data[0].series;
    expect(series).toMatchObject({
      indicatorId,
      name: 'Electricity',
      unit: 'kWh',
      total: { period: 'total', label: '2025', value: 2050, formatted: '2,050 kWh' },
      points: [],
      targets: [],
    });
  });

  it('a monthly LINE widget: one point per month; a quarterly BAR widget: one per quarter', async () => {
    const id = await board({ siteIds: [w.sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'LINE', config: { period: 'MONTHLY' } },
      { type: 'BAR', config: { period: 'QUARTERLY' } },
      { type: 'TABLE' },
    ]);
    const view = await data(id);
    const monthly = view.data[0].series[0];
    expect(monthly.points).toHaveLength(12);
    expect(monthly.points[0]).toEqual({
      period: '2025-01',
      label: 'Jan 2025',
      value: 1100,
      formatted: '1,100 kWh',
    });
    expect(values(monthly.points.slice(0, 5))).toEqual([1100, 250, 300, 400, null]);
    const quarterly = view.data[1].series[0];
    expect(quarterly.points.map((p: { label: string }) => p.label)).toEqual([
      'Q1 2025',
      'Q2 2025',
      'Q3 2025',
      'Q4 2025',
    ]);
    expect(values(quarterly.points)).toEqual([1650, 400, null, null]);
    expect(view.data[2].series[0].points).toEqual([
      { period: '2025', label: '2025', value: 2050, formatted: '2,050 kWh' },
    ]);
  });

  it('honours statuses (APPROVED only: 1100), dates (Feb–Mar: 550), and the organization’s default otherwise', async () => {
    const approved = await board(
      { siteIds: [w.sites.group], startYear: 2025, endYear: 2025, statuses: ['APPROVED'] },
      [{ type: 'VALUE' }],
    );
    expect((await data(approved)).data[0].series[0].total.value).toBe(1100);
    const dated = await board({ siteIds: [w.sites.group], startDate: '2025-02-01', endDate: '2025-03-31' }, [
      { type: 'VALUE' },
      { type: 'LINE', config: { period: 'MONTHLY' } },
    ]);
    const view = await data(dated);
    expect(view.data[0].series[0].total.value).toBe(550);
    expect(
      view.data[1].series[0].points.map((p: { period: string; value: number }) => [p.period, p.value]),
    ).toEqual([
      ['2025-02', 250],
      ['2025-03', 300],
    ]);
    const everywhere = await board({ startYear: 2025, endYear: 2025 }, [{ type: 'VALUE' }]);
    expect((await data(everywhere)).data[0].series[0].total.value).toBe(2057);
    const lastYear = await board({ startYear: 2024, endYear: 2024 }, [{ type: 'VALUE' }]);
    expect((await data(lastYear)).data[0].series[0].total.value).toBe(9999);
  });

  it('BREAKDOWN: one series per named site (its descendants included)', async () => {
    const id = await board({ siteIds: [w.sites.plant1, w.sites.plant2], startYear: 2025, endYear: 2025 }, [
      { type: 'VALUE', config: { sites: 'BREAKDOWN' } },
    ]);
    const series = (await data(id)).data[0].series;
    expect(
      series.map((s: { siteName: string; total: { value: number } }) => [s.siteName, s.total.value]),
    ).toEqual([
      ['Plant 1', 1050],
      ['Plant 2', 1000],
    ]);
  });

  it('a member sees the data of their sites only (the collector: plant 1 and line 1, 1050)', async () => {
    const id = await board({ siteIds: [w.sites.group], startYear: 2025, endYear: 2025 }, [{ type: 'VALUE' }]);
    expect((await data(id, w.tenant.collector.token)).data[0].series[0].total.value).toBe(1050);
    // The viewer has no site: nothing to show.
    expect((await data(id, w.tenant.viewer.token)).data[0].series[0].total.value).toBeNull();
  });

  it('showTarget: the entries of the widget’s period kind within the years; a percentage against its baseline', async () => {
    const id = await board({ siteIds: [w.sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'LINE', config: { period: 'MONTHLY', showTarget: true } },
      { type: 'VALUE', config: { showTarget: true } },
    ]);
    const view = await data(id);
    expect(view.data[0].series[0].targets).toEqual([
      {
        targetId: expect.any(String),
        name: 'Less power',
        type: 'ABSOLUTE',
        points: [
          { period: '2025-01', label: 'Jan 2025', value: 1000, formatted: '1,000 kWh' },
          { period: '2025-02', label: 'Feb 2025', value: 900, formatted: '900 kWh' },
        ],
      },
    ]);
    // Yearly entries of 2025: 3000, and -50 % of the 2024 baseline over the group (9999): 4999.5.
    expect(values(view.data[1].series[0].targets[0].points)).toEqual([3000, 4999.5]);
  });

  it('a filter whose sites were all deleted shows nothing (not the whole organization)', async () => {
    const gone = await createSite(t, w.tenant.organizationId, { name: 'Gone' });
    const id = await board({ siteIds: [gone], startYear: 2025, endYear: 2025 }, [{ type: 'VALUE' }]);
    expect((await api(t, 'DELETE', `/sites/${gone}`, { token: w.tenant.owner.token })).status).toBe(200);
    expect((await data(id)).data[0].series[0].total.value).toBeNull();
  });

  it('decimals format the values', async () => {
    const id = await board({ siteIds: [w.sites.group], startYear: 2025, endYear: 2025 }, [
      { type: 'VALUE', config: { decimals: 1 } },
    ]);
    expect((await data(id)).data[0].series[0].total.formatted).toBe('2,050.0 kWh');
  });

  it('the public link computes over every site of the filter, whoever opens it', async () => {
    const id = await board(
      { siteIds: [w.sites.group], startYear: 2025, endYear: 2025 },
      [{ type: 'VALUE' }],
      {
        isPublic: true,
        publicCanFilterSites: true,
      },
    );
    const res = await api(t, 'GET', `/public/dashboards/${id}`);
    expect(res.body.data[0].series[0].total.value).toBe(2050);
    const picked = await api(t, 'GET', `/public/dashboards/${id}?siteIds=${w.sites.plant2}`);
    expect(picked.body.data[0].series[0].total.value).toBe(1000);
  });

  it('BREAKDOWN without filter sites: the top-level sites by name, whatever order they were created in', async () => {
    for (const name of ['Annex 10', 'Annex 9']) await createSite(t, w.tenant.organizationId, { name });
    const id = await board({ startYear: 2025, endYear: 2025 }, [
      { type: 'VALUE', config: { sites: 'BREAKDOWN' } },
    ]);
    const series = (await data(id)).data[0].series;
    expect(series.map((s: { siteName: string }) => s.siteName)).toEqual([
      'Annex 9',
      'Annex 10',
      'Group',
      'Other',
    ]);
    // Group: plants 1 and 2 with line 1 (100 + 200 + 300 + 400 + 1000 + 50); Other: 7.
    expect(series.map((s: { total: { value: number | null } }) => s.total.value)).toEqual([
      null,
      null,
      2050,
      7,
    ]);
  });
});
