import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  assignSites,
  createDataset,
  createDatasetItem,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { indicatorSeries } from './indicators.series.ts';

const t = useTestApp();
let tenant: Tenant;
const sites: Record<string, string> = {};
const ids: Record<string, string> = {};
const units: Record<string, string> = {};
let datasetId: string;
let elec: string;
let head: string;
let formId: string;

const el = (value: string) => ({ type: 'formElement', value });
const op = (value: string) => ({ type: 'operator', value });
const ind = (name: string) => ({ type: 'indicator', value: ids[name]! });
const grid = (value: string) => ({ type: 'datasetItem', value, metadata: { datasetId } });

/**
 * Sites: Group > France (metadata country FR) > Plant A, Plant B (no country of their own);
 * Group > Plant C (country DE); Group > Plant D (country PL, no PL factor); Group > Plant E (no
 * country anywhere); Group > Plant F (country DE, no data). Grid factors: grid_FR 0.05 kgCO2e per
 * kWh, grid_DE 380 kgCO2e per MWh. 2024, kWh (month: value) and headcount (LAST):
 *
 * | site    | electricity        | headcount |
 * |---------|--------------------|-----------|
 * | Plant A | Jan 1000, Feb 500  | Jan 10    |
 * | Plant B | Jan 3000           | Jan 20    |
 * | Plant C | Jan 2000           | Jan 30    |
 * | Plant D | Jan 500            | Jan 5     |
 * | Plant E | Jan 700            | Jan 5     |
 */
beforeAll(async () => {
  tenant = await createTenant(t);
  const org = tenant.organizationId;
  const rows = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  for (const r of rows) units[r.symbol] = r.id;
  sites.group = await createSite(t, org, { name: 'Group' });
  sites.france = await createSite(t, org, {
    name: 'France',
    parentId: sites.group,
    metadata: { country: 'FR' },
  });
  sites.a = await createSite(t, org, { name: 'Plant A', parentId: sites.france, code: 'PA' });
  sites.b = await createSite(t, org, { name: 'Plant B', parentId: sites.france });
  sites.c = await createSite(t, org, { name: 'Plant C', parentId: sites.group, metadata: { country: 'DE' } });
  sites.d = await createSite(t, org, { name: 'Plant D', parentId: sites.group, metadata: { country: 'PL' } });
  sites.e = await createSite(t, org, { name: 'Plant E', parentId: sites.group });
  sites.f = await createSite(t, org, { name: 'Plant F', parentId: sites.group, metadata: { country: 'DE' } });
  // Indicators are organization-wide: the manager who writes them manages every site (decision 166).
  await assignSites(t, org, tenant.manager.userId, [sites.group]);
  const form = await createForm(t, tenant, {
    periodType: 'MONTHLY',
    elements: [
      { key: 'elec', label: 'Electricity', type: 'NUMBER', unitId: units['kWh'] },
      { key: 'head', label: 'Headcount', type: 'NUMBER', aggregation: 'LAST', unitId: units['count'] },
    ],
  });
  elec = form.elements[0]!.id;
  formId = form.id;
  head = form.elements[1]!.id;
  await activateForm(t, tenant, form.id, Object.values(sites), [2024]);
  const submit = async (siteId: string, values: [string, number, number][]) => {
    const res = await api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId,
        year: 2024,
        values: values.map(([elementKey, periodUnit, value]) => ({ elementKey, periodUnit, value })),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  await submit(sites.a, [
    ['elec', 1, 1000],
    ['elec', 2, 500],
    ['head', 1, 10],
  ]);
  await submit(sites.b, [
    ['elec', 1, 3000],
    ['head', 1, 20],
  ]);
  await submit(sites.c, [
    ['elec', 1, 2000],
    ['head', 1, 30],
  ]);
  await submit(sites.d, [
    ['elec', 1, 500],
    ['head', 1, 5],
  ]);
  await submit(sites.e, [
    ['elec', 1, 700],
    ['head', 1, 5],
  ]);
  datasetId = await createDataset(t, org, { name: 'Grid factors' });
  ids.itemFR = await createDatasetItem(t, org, datasetId, {
    key: 'grid_FR',
    value: 0.05,
    year: 2024,
    unit: 'kgCO2e',
    inputUnitId: units['kWh'],
  });
  ids.itemDE = await createDatasetItem(t, org, datasetId, {
    key: 'grid_DE',
    value: 380,
    year: 2024,
    unit: 'kgCO2e',
    inputUnitId: units['MWh'],
  });
  const make = async (name: string, body: Record<string, unknown>) => {
    const res = await api(t, 'POST', '/indicators', { token: tenant.manager.token, body: { name, ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids[name] = res.body.id;
  };
  await make('scope2', {
    unitId: units['kgCO2e'],
    expressionParts: [el(elec), op('*'), grid('grid_{site.metadata.country}')],
  });
  await make('scope2FR', { unitId: units['kgCO2e'], expressionParts: [el(elec), op('*'), grid('grid_FR')] });
  await make('headcount', { unitId: units['count'], expressionParts: [el(head)] });
  await make('intensity', { expressionParts: [ind('scope2'), op('/'), ind('headcount')] });
});

const values = async (name: string, body: Record<string, unknown> = {}) => {
  const res = await api(t, 'POST', '/indicators/current-values', {
    token: tenant.owner.token,
    body: { indicatorIds: [ids[name]], year: 2024, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results[ids[name]!];
};

describe('site-dependent coefficients', () => {
  it('multiplies each site’s electricity by its own country’s factor, inherited from a parent', async () => {
    // France (inherited by A and B): (1000 + 500 + 3000) kWh × 0.05 = 225 kgCO2e.
    const france = await values('scope2', { siteIds: [sites.france] });
    expect(france).toMatchObject({ value: 225, unit: 'kgCO2e', issues: [] });
    // Plant C: 2000 kWh = 2 MWh × 380 = 760 kgCO2e.
    expect((await values('scope2', { siteIds: [sites.c] })).value).toBe(760);
    // With one factor (grid_FR) for every site, Plant C would be 2000 × 0.05 = 100.
    expect((await values('scope2FR', { siteIds: [sites.c] })).value).toBe(100);
  });

  it('leaves out a site without a factor or without a country, and says which', async () => {
    const all = await values('scope2');
    // 225 (France) + 760 (Plant C); Plant D (grid_PL missing) and Plant E (no country) left out.
    expect(all.value).toBe(985);
    const missing = all.issues.filter((i: { type: string }) => i.type === 'missingDatasetItem');
    expect(
      missing
        .map((i: { siteId: string; siteName: string; key: string }) => [i.siteId, i.siteName, i.key])
        .sort(),
    ).toEqual(
      [
        [sites.d, 'Plant D', 'grid_PL'],
        [sites.e, 'Plant E', 'grid_{site.metadata.country}'],
      ].sort(),
    );
    // Plant F (DE) has no data: no issue for it, nothing added.
    expect(missing.some((i: { siteId: string }) => i.siteId === sites.f)).toBe(false);
    // Only Plant D: no value, and the issue says why.
    const d = await values('scope2', { siteIds: [sites.d] });
    expect(d).toMatchObject({
      value: null,
      issues: [{ type: 'missingDatasetItem', siteId: sites.d, key: 'grid_PL' }],
    });
  });

  it('divides the summed Scope 2 by the total headcount in a nested intensity, issues passed up', async () => {
    const res = await values('intensity');
    // (225 + 760) / (10 + 20 + 30 + 5 + 5) = 985 / 70.
    expect(res.value).toBe(985 / 70);
    expect(res.issues.map((i: { siteId: string }) => i.siteId).sort()).toEqual([sites.d, sites.e].sort());
  });

  it('names a resolved coefficient whose unit is not in the catalog (unknownUnit), once per key', async () => {
    const org = tenant.organizationId;
    const odd = await createDataset(t, org, { name: 'Odd grid factors' });
    await createDatasetItem(t, org, odd, { key: 'grid_FR', value: 0.05, year: 2024, unit: 'kgCO2e/unicorn' });
    await createDatasetItem(t, org, odd, {
      key: 'grid_DE',
      value: 380,
      year: 2024,
      unit: 'kgCO2e',
      inputUnitId: units['MWh'],
    });
    const res = await api(t, 'POST', '/indicators', {
      token: tenant.manager.token,
      body: {
        name: 'scope2 odd',
        unitId: units['kgCO2e'],
        expressionParts: [
          el(elec),
          op('*'),
          { type: 'datasetItem', value: 'grid_{site.metadata.country}', metadata: { datasetId: odd } },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.scope2odd = res.body.id;
    const all = await values('scope2odd');
    // France: 4500 × 0.05 = 225, unconverted (unit unknown); Plant C: 2 MWh × 380 = 760.
    expect(all.value).toBe(985);
    const unknown = all.issues.filter((i: { type: string }) => i.type === 'unknownUnit');
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toMatchObject({ partIndex: 2, key: 'grid_FR' });
    expect(unknown[0].message).toContain('"kgCO2e/unicorn", which is not in the unit catalog');
    // Plant C alone resolves to a known unit: no such issue.
    const c = await values('scope2odd', { siteIds: [sites.c] });
    expect(c).toMatchObject({ value: 760, issues: [] });
  });

  it('explains which item each key resolved to and how many sites used it', async () => {
    const res = await values('scope2', { explain: true });
    const used = res.explain.siteCoefficients as { key: string; datasetItemId: string; siteCount: number }[];
    // FR: Plant A and Plant B (France itself has no data); DE: Plant C (Plant F has no data).
    expect(used.map((u) => [u.key, u.datasetItemId, u.siteCount]).sort()).toEqual(
      [
        ['grid_DE', ids.itemDE, 1],
        ['grid_FR', ids.itemFR, 2],
      ].sort(),
    );
    // The whole organization: every site counted.
    expect(res.explain.scope).toMatchObject({ allSites: true, siteCount: 8 });
  });

  it('computes series (and so dashboards) the same way, per month', async () => {
    const [result] = await t.database.tenant(tenant.organizationId, (tx) =>
      indicatorSeries(
        tx,
        { organizationId: tenant.organizationId },
        { indicatorIds: [ids.scope2!], fromYear: 2024, toYear: 2024, grouping: 'MONTHLY' },
        new Date('2025-06-01T00:00:00Z'),
      ),
    );
    // January: (1000 + 3000) × 0.05 + 2 MWh × 380 = 200 + 760 = 960; February: 500 × 0.05 = 25.
    expect(result!.total.value).toBe(985);
    expect(result!.points.slice(0, 3).map((p) => p.value.value)).toEqual([960, 25, null]);
    // bySite: the group and France each on their own.
    const bySite = await t.database.tenant(tenant.organizationId, (tx) =>
      indicatorSeries(
        tx,
        { organizationId: tenant.organizationId },
        {
          indicatorIds: [ids.scope2!],
          siteIds: [sites.france!, sites.c!],
          bySite: true,
          fromYear: 2024,
          toYear: 2024,
          grouping: 'YEARLY',
        },
        new Date('2025-06-01T00:00:00Z'),
      ),
    );
    expect(bySite.map((r) => [r.siteId, r.total.value, r.points[0]!.value.value])).toEqual([
      [sites.france, 225, 225],
      [sites.c, 760, 760],
    ]);
  });

  it('refuses unknown placeholders and a missing dataset at POST, naming the part', async () => {
    for (const [value, metadata] of [
      ['grid_{site.country}', { datasetId }],
      ['grid_{site.metadata.country', { datasetId }],
      ['grid_{site.metadata.country}', { datasetId: '00000000-0000-4000-8000-000000000000' }],
    ] as const) {
      const res = await api(t, 'POST', '/indicators', {
        token: tenant.manager.token,
        body: { name: 'bad', expressionParts: [el(elec), op('*'), { type: 'datasetItem', value, metadata }] },
      });
      expect(res.status, value).toBe(400);
      expect(res.body.issues[0].path).toBe('expressionParts.2');
    }
  });

  it('resolves {site.code}', async () => {
    const org = tenant.organizationId;
    await createDatasetItem(t, org, datasetId, {
      key: 'site_PA',
      value: 2,
      year: 2024,
      unit: 'kgCO2e',
      inputUnitId: units['kWh'],
    });
    const res = await api(t, 'POST', '/indicators', {
      token: tenant.manager.token,
      body: {
        name: 'by code',
        unitId: units['kgCO2e'],
        expressionParts: [el(elec), op('*'), grid('site_{site.code}')],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.byCode = res.body.id;
    // Plant A (code PA): 1500 kWh × 2 = 3000; Plant B has no code: left out with an issue.
    const france = await values('byCode', { siteIds: [sites.france] });
    expect(france.value).toBe(3000);
    expect(france.issues).toMatchObject([
      { type: 'missingDatasetItem', siteId: sites.b, siteName: 'Plant B' },
    ]);
  });

  it('names a parent site without a country once it has values of its own, and only then', async () => {
    // The group (no country, above every plant) had no values of its own: nothing to name.
    const before = await values('scope2');
    expect(before.value).toBe(985);
    expect(before.issues.some((i: { siteId?: string }) => i.siteId === sites.group)).toBe(false);
    const submitGroup = (value: number | null) =>
      api(t, 'POST', '/form-submissions', {
        token: tenant.owner.token,
        body: {
          formId,
          siteId: sites.group,
          year: 2024,
          values: [{ elementKey: 'elec', periodUnit: 3, value }],
        },
      });
    // 400 kWh reported at the group itself: left out (no country), and named.
    expect((await submitGroup(400)).status).toBe(200);
    const after = await values('scope2');
    expect(after.value).toBe(985);
    expect(after.issues).toContainEqual(
      expect.objectContaining({ type: 'missingDatasetItem', siteId: sites.group, siteName: 'Group' }),
    );
    // The same for a series: March holds the group's value only, so no figure and the issue.
    const [series] = await t.database.tenant(tenant.organizationId, (tx) =>
      indicatorSeries(
        tx,
        { organizationId: tenant.organizationId },
        { indicatorIds: [ids.scope2!], fromYear: 2024, toYear: 2024, grouping: 'MONTHLY' },
        new Date('2025-06-01T00:00:00Z'),
      ),
    );
    const march = series!.points.find((p) => p.period === '2024-03')!;
    expect(march.value).toMatchObject({
      value: null,
      issues: [expect.objectContaining({ type: 'missingDatasetItem', siteId: sites.group })],
    });
    // Deleted again: the group is not named any more.
    expect((await submitGroup(null)).status).toBe(200);
    const cleared = await values('scope2');
    expect(cleared.value).toBe(985);
    expect(cleared.issues.some((i: { siteId?: string }) => i.siteId === sites.group)).toBe(false);
  });
});
