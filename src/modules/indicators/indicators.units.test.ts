import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  createDataset,
  createDatasetItem,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
const units: Record<string, string> = {};
const e: Record<string, string> = {};
const ids: Record<string, string> = {};
let datasetId: string;

const el = (name: string) => ({ type: 'formElement', value: e[name]! });
const op = (value: string) => ({ type: 'operator', value });
const ind = (name: string) => ({ type: 'indicator', value: ids[name]! });
const item = (name: string) => ({ type: 'datasetItem', value: ids[name]! });

/**
 * One plant, 2025, month 1: electricity 2000 kWh, gas 3 MWh, diesel 100 L, headcount 10 (unit
 * count). Factors: grid 0.5 kgCO2e per kWh; "bare" 0.4 kgCO2e without an input unit.
 */
beforeAll(async () => {
  tenant = await createTenant(t);
  const org = tenant.organizationId;
  const rows = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  for (const r of rows) units[r.symbol] = r.id;
  const site = await createSite(t, org, { name: 'Plant' });
  const form = await createForm(t, tenant, {
    periodType: 'MONTHLY',
    elements: [
      { key: 'elec', label: 'Electricity', type: 'NUMBER', unitId: units['kWh'] },
      { key: 'gas', label: 'Gas', type: 'NUMBER', unitId: units['MWh'] },
      { key: 'diesel', label: 'Diesel', type: 'NUMBER', unitId: units['L'] },
      { key: 'head', label: 'Headcount', type: 'NUMBER', unitId: units['count'], aggregation: 'LAST' },
      { key: 'misc', label: 'Misc', type: 'NUMBER' },
    ],
  });
  for (const x of form.elements) e[x.key] = x.id;
  await activateForm(t, tenant, form.id, [site], [2025]);
  const res = await api(t, 'POST', '/form-submissions', {
    token: tenant.owner.token,
    body: {
      formId: form.id,
      siteId: site,
      year: 2025,
      values: [
        { elementKey: 'elec', periodUnit: 1, value: 2000 },
        { elementKey: 'gas', periodUnit: 1, value: 3 },
        { elementKey: 'diesel', periodUnit: 1, value: 100 },
        { elementKey: 'head', periodUnit: 1, value: 10 },
        { elementKey: 'misc', periodUnit: 1, value: 7 },
      ],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  datasetId = await createDataset(t, org, { name: 'Factors' });
  ids.grid = await createDatasetItem(t, org, datasetId, {
    key: 'grid',
    value: 0.5,
    year: 2025,
    unit: 'kgCO2e',
    inputUnitId: units['kWh'],
  });
  ids.bare = await createDatasetItem(t, org, datasetId, {
    key: 'bare',
    value: 0.4,
    year: 2025,
    unit: 'kgCO2e',
  });
  ids.odd = await createDatasetItem(t, org, datasetId, {
    key: 'odd',
    value: 2,
    year: 2025,
    unit: 'kgCO2e/unicorn',
  });
});

const create = (name: string, body: Record<string, unknown>) =>
  api(t, 'POST', '/indicators', { token: tenant.owner.token, body: { name, ...body } });

async function make(name: string, body: Record<string, unknown>) {
  const res = await create(name, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  ids[name] = res.body.id;
}

const value = async (name: string) => {
  const res = await api(t, 'POST', '/indicators/current-values', {
    token: tenant.owner.token,
    body: { indicatorIds: [ids[name]], year: 2025 },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results[ids[name]!];
};

describe('dimensional analysis of expressions', () => {
  it('refuses kWh + L, naming the operator and both dimensions', async () => {
    const res = await create('bad sum', { expressionParts: [el('elec'), op('+'), el('diesel')] });
    expect(res.status).toBe(400);
    expect(res.body.issues[0].path).toBe('expressionParts.1');
    expect(res.body.issues[0].message).toContain('kWh (energy) and L (volume) cannot be added');
  });

  it('refuses kWh × a factor without input unit in an emissions indicator (the silent ×1,000)', async () => {
    const res = await create('bare', {
      unitId: units['tCO2e'],
      expressionParts: [el('elec'), op('*'), item('bare')],
    });
    expect(res.status).toBe(400);
    expect(res.body.issues[0]).toMatchObject({ path: 'expressionParts.1' });
    expect(res.body.issues[0].message).toContain(
      'kWh × kgCO2e (no input unit) is emissions·energy, the indicator is emissions (tCO2e)',
    );
  });

  it('refuses an expression of another dimension than the unit (kWh into kgCO2e)', async () => {
    const res = await create('energy as emissions', {
      unitId: units['kgCO2e'],
      expressionParts: [el('elec')],
    });
    expect(res.status).toBe(400);
    expect(res.body.issues[0]).toMatchObject({ path: 'expressionParts.0' });
    expect(res.body.issues[0].message).toContain('kWh is energy, the indicator is emissions (kgCO2e)');
    // PUT is checked too.
    await make('elec', { unitId: units['kWh'], expressionParts: [el('elec')] });
    const put = await api(t, 'PUT', `/indicators/${ids.elec}`, {
      token: tenant.owner.token,
      body: { unitId: units['tCO2e'] },
    });
    expect(put.status).toBe(400);
  });

  it('converts into the indicator’s unit: kgCO2e into tCO2e, MWh added to kWh', async () => {
    // 2000 kWh × 0.5 kgCO2e/kWh = 1000 kgCO2e = 1 tCO2e.
    await make('scope2', { unitId: units['tCO2e'], expressionParts: [el('elec'), op('*'), item('grid')] });
    expect(await value('scope2')).toMatchObject({ value: 1, unit: 'tCO2e', issues: [] });
    // 2000 kWh + 3 MWh = 2000 + 3000 = 5000 kWh; in MWh: 5.
    await make('energy', { unitId: units['kWh'], expressionParts: [el('elec'), op('+'), el('gas')] });
    expect((await value('energy')).value).toBe(5000);
    await make('energyMWh', { unitId: units['MWh'], expressionParts: [el('elec'), op('+'), el('gas')] });
    expect((await value('energyMWh')).value).toBe(5);
  });

  it('computes an intensity in a compound unit from the catalog (tCO2e/count, kgCO2e/count)', async () => {
    await make('headcount', { unitId: units['count'], expressionParts: [el('head')] });
    // 1 tCO2e / 10 heads = 0.1 tCO2e per head = 100 kgCO2e per head.
    await make('perHead', {
      unitId: units['tCO2e/count'],
      expressionParts: [ind('scope2'), op('/'), ind('headcount')],
    });
    expect(await value('perHead')).toMatchObject({ value: 0.1, unit: 'tCO2e/count' });
    await make('perHeadKg', {
      unitId: units['kgCO2e/count'],
      expressionParts: [ind('scope2'), op('/'), ind('headcount')],
    });
    expect((await value('perHeadKg')).value).toBe(100);
    // tCO2e per head is not tCO2e.
    const wrong = await create('wrong', {
      unitId: units['tCO2e'],
      expressionParts: [ind('scope2'), op('/'), ind('headcount')],
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.issues[0].message).toContain('is emissions/count, the indicator is emissions (tCO2e)');
  });

  it('creates a compound unit of one’s own from two dimensions', async () => {
    const res = await api(t, 'POST', '/units', {
      token: tenant.owner.token,
      body: {
        symbol: 'kgCO2e/night',
        name: 'kg CO2e per hotel night',
        dimension: 'emissions/stay',
        factorToBase: 1,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.dimension).toBe('emissions/stay');
  });

  it('keeps computing an indicator stored before the check, with an issue of its own on GET', async () => {
    // Stored directly, as an older version accepted it: kWh × 0.4 kgCO2e (no input unit) in kgCO2e.
    const row = await t.database.tenant(tenant.organizationId, (tx) =>
      sql<{ id: string }>`insert into indicators (organization_id, name, unit_id, expression_parts)
        values (${tenant.organizationId}, 'legacy', ${units['kgCO2e']},
                ${JSON.stringify([
                  { type: 'formElement', value: e.elec },
                  { type: 'operator', value: '*' },
                  { type: 'datasetItem', value: ids.bare },
                ])}::jsonb) returning id`.execute(tx),
    );
    ids.legacy = row.rows[0]!.id;
    const got = await api(t, 'GET', `/indicators/${ids.legacy}`, { token: tenant.viewer.token });
    expect(got.status).toBe(200);
    expect(got.body.issues).toMatchObject([{ type: 'dimensionMismatch', partIndex: 1 }]);
    // 2000 × 0.4 = 800, as before (not converted: its dimension is not the unit's).
    expect((await value('legacy')).value).toBe(800);
  });

  it('names each part whose unit is unknown (unknownUnit) instead of leaving the figure unchecked silently', async () => {
    // An element without unit in a tCO2e indicator: 7, neither checked nor converted, and said so.
    await make('misc', { unitId: units['tCO2e'], expressionParts: [el('misc')] });
    const got = await api(t, 'GET', `/indicators/${ids.misc}`, { token: tenant.viewer.token });
    expect(got.status).toBe(200);
    expect(got.body.issues).toHaveLength(1);
    expect(got.body.issues[0]).toMatchObject({ type: 'unknownUnit', partIndex: 0 });
    expect(got.body.issues[0].message).toContain('The element "Misc" has no unit');
    expect(got.body.issues[0].message).toContain("the indicator's unit (tCO2e)");
    const v = await value('misc');
    expect(v.value).toBe(7);
    expect(v.issues).toMatchObject([{ type: 'unknownUnit', partIndex: 0 }]);

    // A coefficient whose unit is not in the catalog: 2000 kWh × 2 = 4000, unconverted, and said so.
    await make('oddFactor', { unitId: units['kgCO2e'], expressionParts: [el('elec'), op('*'), item('odd')] });
    const odd = await api(t, 'GET', `/indicators/${ids.oddFactor}`, { token: tenant.viewer.token });
    expect(odd.body.issues).toMatchObject([{ type: 'unknownUnit', partIndex: 2 }]);
    expect(odd.body.issues[0].message).toContain('"kgCO2e/unicorn", which is not in the unit catalog');
    expect(await value('oddFactor')).toMatchObject({
      value: 4000,
      issues: [{ type: 'unknownUnit', partIndex: 2 }],
    });

    // A nested indicator without unit inside one with a unit.
    await make('bareMisc', { expressionParts: [el('misc')] });
    expect(
      (await api(t, 'GET', `/indicators/${ids.bareMisc}`, { token: tenant.viewer.token })).body.issues,
    ).toEqual([]);
    await make('nestedBare', {
      unitId: units['kWh'],
      expressionParts: [ind('bareMisc'), op('+'), el('elec')],
    });
    const nested = await api(t, 'GET', `/indicators/${ids.nestedBare}`, { token: tenant.viewer.token });
    expect(nested.body.issues).toMatchObject([{ type: 'unknownUnit', partIndex: 0 }]);
    expect(nested.body.issues[0].message).toContain('The indicator "bareMisc" has no unit');

    // Every part known: no such issue (the scope2 indicator above).
    expect((await value('scope2')).issues).toEqual([]);
  });
});
