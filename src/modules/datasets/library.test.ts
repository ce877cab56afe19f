import { averageIntensity } from '@tgwf/co2';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createDatasetWorld } from '../../../test/helpers/dataset-world.ts';
import {
  activateForm,
  assignSites,
  createForm,
  createSite,
  type Tenant,
} from '../../../test/helpers/factories.ts';

/**
 * The built-in factor library (issue 44, decision 185): common, read-only datasets of no
 * organization, with their source, licence and version; figures checked against the package
 * and the IPCC tables by hand; a location-based Scope 2 computed from the library alone.
 */
const t = useTestApp();
let tenant: Tenant;
let other: Tenant;
let units: Record<string, string>;
type Listed = Record<string, any>;
let library: Listed[];
const byName = (name: string) => library.find((d) => d.name === name)!;
const GRID = 'Grid electricity, location-based (Ember)';

/** Every item of one library dataset, by key. */
async function itemsOf(datasetId: string): Promise<Map<string, Listed>> {
  const res = await api(t, 'GET', '/dataset-items', { token: tenant.owner.token });
  expect(res.status).toBe(200);
  return new Map(
    res.body.filter((i: Listed) => i.datasetId === datasetId).map((i: Listed) => [i.data.key, i]),
  );
}

beforeAll(async () => {
  ({ tenant, other, units } = await createDatasetWorld(t));
  const res = await api(t, 'GET', '/datasets', { token: tenant.manager.token });
  expect(res.status).toBe(200);
  library = res.body.filter((d: Listed) => d.builtIn);
});

describe('the library’s datasets', () => {
  it('are listed to every organization as common, read-only, with source, licence, version and link', async () => {
    expect(library.map((d) => d.name).sort()).toEqual([
      'GWP-100, IPCC AR5',
      'GWP-100, IPCC AR6',
      GRID,
      'Stationary combustion, IPCC 2006 defaults',
    ]);
    for (const d of library) {
      expect(d).toMatchObject({ isCommon: true, builtIn: true, readOnly: true, organizationId: null });
      expect(d.supersededById).toBeNull();
      for (const field of ['dataSource', 'version', 'licence', 'link', 'description'])
        expect(d[field], `${d.name}: ${field}`).toEqual(expect.stringMatching(/\S/));
      expect(d.link).toMatch(/^https:\/\//);
    }
    expect(byName(GRID)).toMatchObject({
      licence: 'CC BY-SA 4.0',
      version: 'Ember yearly data as shipped in CO2.js 0.19.0',
    });
    expect(byName(GRID).dataSource).toContain('Ember');
    // Another organization sees the same datasets, by the same ids.
    const theirs = await api(t, 'GET', '/datasets', { token: other.owner.token });
    expect(theirs.body.filter((d: Listed) => d.builtIn).map((d: Listed) => d.id)).toEqual(
      library.map((d) => d.id),
    );
  });

  it('carry the source, licence and version on every item too', async () => {
    for (const d of library) {
      const items = await itemsOf(d.id);
      expect(items.size, d.name).toBe(d.itemCount);
      for (const item of items.values())
        expect(item.metadata, `${d.name}: ${item.data.key}`).toMatchObject({
          source: d.dataSource,
          licence: d.licence,
          version: d.version,
        });
    }
  });
});

describe('the figures', () => {
  it('GWP-100 of R-410A is the mass-weighted sum of HFC-32 and HFC-125 (50/50), AR6 and AR5', async () => {
    const ar6 = await itemsOf(byName('GWP-100, IPCC AR6').id);
    const ar5 = await itemsOf(byName('GWP-100, IPCC AR5').id);
    // AR6 WG1 Table 7.SM.7: HFC-32 771, HFC-125 3740; 0.5 × 771 + 0.5 × 3740 = 2255.5.
    expect(ar6.get('gwp_HFC-32')!.data.value).toBe(771);
    expect(ar6.get('gwp_HFC-125')!.data.value).toBe(3740);
    expect(ar6.get('gwp_R-410A')).toMatchObject({
      year: 2021,
      inputUnitId: units.kg,
      data: { value: 2255.5, unit: 'kgCO2e' },
      metadata: { components: { 'HFC-32': 0.5, 'HFC-125': 0.5 } },
    });
    // AR5 WG1 Table 8.A.1: HFC-32 677, HFC-125 3170; 0.5 × 677 + 0.5 × 3170 = 1923.5.
    expect(ar5.get('gwp_R-410A')!.data.value).toBe(1923.5);
    // R-404A (AR5): 0.44 × 3170 + 0.52 × 4800 + 0.04 × 1300 = 1394.8 + 2496 + 52 = 3942.8.
    expect(ar5.get('gwp_R-404A')!.data.value).toBeCloseTo(3942.8, 9);
    // R-407C (AR6): 0.23 × 771 + 0.25 × 3740 + 0.52 × 1530 = 177.33 + 935 + 795.6 = 1907.93.
    expect(ar6.get('gwp_R-407C')!.data.value).toBeCloseTo(1907.93, 9);
    expect(ar6.get('gwp_CH4_fossil')!.data.value).toBe(29.8);
    expect(ar6.get('gwp_N2O')!.data.value).toBe(273);
    expect(ar5.get('gwp_SF6')!.data.value).toBe(23500);
  });

  it('the grid factor of Germany is the package’s, under its alpha-2 and alpha-3 keys', async () => {
    const grid = await itemsOf(byName(GRID).id);
    expect(averageIntensity.data.DEU).toBe(342.06);
    for (const key of ['grid_DE', 'grid_DEU'])
      expect(grid.get(key), key).toMatchObject({
        year: 2024,
        inputUnitId: units.kWh,
        data: { key, value: averageIntensity.data.DEU, unit: 'gCO2e' },
        metadata: { country: 'DE', countryAlpha3: 'DEU', emberYear: 2024 },
      });
    // Every country of the package that has an ISO code is there, under both codes.
    for (const [alpha3, value] of Object.entries(averageIntensity.data as Record<string, number>)) {
      const item = grid.get(`grid_${alpha3}`);
      if (!item) continue; // regions (ASIA, G20, …)
      expect(item.data.value, alpha3).toBe(value);
      expect(grid.get(`grid_${item.metadata.country}`)!.data.value, alpha3).toBe(value);
    }
    expect(grid.get('grid_FR')!.data.value).toBe(averageIntensity.data.FRA);
    expect(grid.get('grid_WORLD')!.data.value).toBe(averageIntensity.data.WORLD);
  });

  it('natural gas: IPCC 2006 defaults per TJ and the NCV per tonne', async () => {
    const fuel = await itemsOf(byName('Stationary combustion, IPCC 2006 defaults').id);
    expect(fuel.get('natural_gas_co2')).toMatchObject({
      inputUnitId: units.TJ,
      data: { value: 56100, unit: 'kgCO2e' },
    });
    expect(fuel.get('natural_gas_ch4')!.data).toMatchObject({ value: 1, unit: 'kg' });
    expect(fuel.get('natural_gas_n2o')!.data).toMatchObject({ value: 0.1, unit: 'kg' });
    expect(fuel.get('natural_gas_ncv')).toMatchObject({
      inputUnitId: units.t,
      data: { value: 48, unit: 'GJ' },
    });
    expect(fuel.get('gas_diesel_oil_co2')!.data.value).toBe(74100);
    expect(fuel.get('other_bituminous_coal_co2')!.data.value).toBe(94600);
  });
});

describe('a location-based Scope 2 from the library alone', () => {
  it('equals each site’s consumption × its country’s library factor, for sites in DE, FR (alpha-3) and PL', async () => {
    const org = tenant.organizationId;
    const group = await createSite(t, org, { name: 'Group' });
    const berlin = await createSite(t, org, { name: 'Berlin', parentId: group, metadata: { country: 'DE' } });
    const lyon = await createSite(t, org, { name: 'Lyon', parentId: group, metadata: { country: 'FRA' } });
    const lodz = await createSite(t, org, { name: 'Łódź', parentId: group, metadata: { country: 'PL' } });
    await assignSites(t, org, tenant.manager.userId, [group]);
    const form = await createForm(t, tenant, {
      periodType: 'YEARLY',
      elements: [{ key: 'elec', label: 'Electricity', type: 'NUMBER', unitId: units.kWh }],
    });
    await activateForm(t, tenant, form.id, [group, berlin, lyon, lodz], [2025]);
    const kWh = new Map([
      [berlin, 12000],
      [lyon, 8000],
      [lodz, 5000],
    ]);
    for (const [siteId, value] of kWh) {
      const res = await api(t, 'POST', '/form-submissions', {
        token: tenant.owner.token,
        body: { formId: form.id, siteId, year: 2025, values: [{ elementKey: 'elec', periodUnit: 1, value }] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const gridId = byName(GRID).id;
    const created = await api(t, 'POST', '/indicators', {
      token: tenant.manager.token,
      body: {
        name: 'Scope 2, location-based',
        unitId: units.tCO2e,
        expressionParts: [
          { type: 'formElement', value: form.elements[0]!.id },
          { type: 'operator', value: '*' },
          { type: 'datasetItem', value: 'grid_{site.metadata.country}', metadata: { datasetId: gridId } },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const value = async (siteIds?: string[]) => {
      const res = await api(t, 'POST', '/indicators/current-values', {
        token: tenant.owner.token,
        body: { indicatorIds: [created.body.id], year: 2025, ...(siteIds ? { siteIds } : {}) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.results[created.body.id];
    };
    // By hand, g per kWh (Ember 2024 via CO2.js 0.19.0) to tonnes: ÷ 1,000,000.
    // Berlin 12,000 × 342.06 = 4,104,720 g; Lyon 8,000 × 44.18 = 353,440 g; Łódź 5,000 × 614.98 = 3,074,900 g.
    expect([averageIntensity.data.DEU, averageIntensity.data.FRA, averageIntensity.data.POL]).toEqual([
      342.06, 44.18, 614.98,
    ]);
    expect((await value([berlin])).value).toBeCloseTo(4.10472, 9);
    expect((await value([lyon])).value).toBeCloseTo(0.35344, 9);
    expect((await value([lodz])).value).toBeCloseTo(3.0749, 9);
    const all = await value();
    expect(all).toMatchObject({ unit: 'tCO2e', issues: [] });
    expect(all.value).toBeCloseTo(4.10472 + 0.35344 + 3.0749, 9); // 7.53306 t

    // A newer library version is another dataset: the indicator, pinned to the old one, keeps
    // its figures; an indicator that names the new one gets the new figures.
    const next = await loadNextGridVersion(gridId, { DE: 300, FRA: 50, PL: 600 });
    expect((await value()).value).toBeCloseTo(7.53306, 9);
    const listed = await api(t, 'GET', `/datasets/${gridId}`, { token: tenant.manager.token });
    expect(listed.body.supersededById).toBe(next);
    const repinned = await api(t, 'PUT', `/indicators/${created.body.id}`, {
      token: tenant.manager.token,
      body: {
        expressionParts: [
          { type: 'formElement', value: form.elements[0]!.id },
          { type: 'operator', value: '*' },
          { type: 'datasetItem', value: 'grid_{site.metadata.country}', metadata: { datasetId: next } },
        ],
      },
    });
    expect(repinned.status, JSON.stringify(repinned.body)).toBe(200);
    // 12,000 × 300 + 8,000 × 50 + 5,000 × 600 = 3,600,000 + 400,000 + 3,000,000 g = 7 t.
    expect((await value()).value).toBeCloseTo(7, 9);
  });
});

/**
 * What a later library migration does, in miniature: a new dataset of no organization with the
 * new figures, and the old dataset marked superseded (its items untouched).
 */
async function loadNextGridVersion(previous: string, factors: Record<string, number>): Promise<string> {
  return t.database.system(async (tx) => {
    const { rows } = await sql<{ id: string }>`
      insert into datasets (organization_id, name, data_source, version, licence, link, is_common)
      values (null, 'Grid electricity, location-based (Ember), next', 'test', 'next', 'CC BY-SA 4.0',
              'https://example.org/', true)
      returning id`.execute(tx);
    const id = rows[0]!.id;
    for (const [code, value] of Object.entries(factors))
      await sql`
        insert into dataset_items (organization_id, dataset_id, name, key, value, unit, year, input_unit_id)
        values (null, ${id}, ${code}, ${`grid_${code}`}, ${value}, 'gCO2e', 2025, ${units.kWh})`.execute(tx);
    await sql`update datasets set superseded_by = ${id} where id = ${previous}`.execute(tx);
    return id;
  });
}
