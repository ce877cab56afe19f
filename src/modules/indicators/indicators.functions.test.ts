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

const t = useTestApp();
let tenant: Tenant;
const sites: Record<string, string> = {};
const ids: Record<string, string> = {};
const units: Record<string, string> = {};
const el: Record<string, string> = {};
let mixes: string;
let grids: string;
let fuels: string;

const e = (key: string) => ({ type: 'formElement', value: el[key]! });
const op = (value: string) => ({ type: 'operator', value });
const n = (value: string) => ({ type: 'number', value });
const fn = (value: string) => ({ type: 'function', value });
const sep = { type: 'separator', value: ',' };
const open = { type: 'parenthesis', value: '(' };
const close = { type: 'parenthesis', value: ')' };
const key = (value: string, datasetId: string) => ({ type: 'datasetItem', value, metadata: { datasetId } });

/**
 * Three plants, January 2024, in kWh; production in t:
 *
 * | site       | country | electricity | certificates | production |
 * |------------|---------|-------------|--------------|------------|
 * | Plant DE 1 | DE      | 1000        | 1500         | 10         |
 * | Plant DE 2 | DE      | 2000        | 500          | 20         |
 * | Plant FR 1 | FR      | 4000        | 1000         | 40         |
 *
 * Residual mixes: rm_DE 0.5 and rm_FR 0.1 kgCO2e per kWh. Grid factors: grid_DE 380 kgCO2e per
 * MWh, grid_FR 0.05 kgCO2e per kWh.
 */
beforeAll(async () => {
  tenant = await createTenant(t);
  const org = tenant.organizationId;
  const rows = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  for (const r of rows) units[r.symbol] = r.id;
  sites.group = await createSite(t, org, { name: 'Group' });
  sites.de1 = await createSite(t, org, {
    name: 'Plant DE 1',
    parentId: sites.group,
    metadata: { country: 'DE' },
  });
  sites.de2 = await createSite(t, org, {
    name: 'Plant DE 2',
    parentId: sites.group,
    metadata: { country: 'DE' },
  });
  sites.fr1 = await createSite(t, org, {
    name: 'Plant FR 1',
    parentId: sites.group,
    metadata: { country: 'FR' },
  });
  await assignSites(t, org, tenant.manager.userId, [sites.group]);
  const form = await createForm(t, tenant, {
    periodType: 'MONTHLY',
    elements: [
      { key: 'elec', label: 'Electricity', type: 'NUMBER', unitId: units['kWh'] },
      { key: 'certs', label: 'Certificates', type: 'NUMBER', unitId: units['kWh'] },
      { key: 'prod', label: 'Production', type: 'NUMBER', unitId: units['t'] },
    ],
  });
  for (const element of form.elements) el[element.key] = element.id;
  await activateForm(t, tenant, form.id, Object.values(sites), [2024]);
  const submit = async (siteId: string, elec: number, certs: number, prod: number) => {
    const res = await api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId,
        year: 2024,
        values: [
          { elementKey: 'elec', periodUnit: 1, value: elec },
          { elementKey: 'certs', periodUnit: 1, value: certs },
          { elementKey: 'prod', periodUnit: 1, value: prod },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  await submit(sites.de1, 1000, 1500, 10);
  await submit(sites.de2, 2000, 500, 20);
  await submit(sites.fr1, 4000, 1000, 40);
  const item = (datasetId: string, k: string, value: number, input: string) =>
    createDatasetItem(t, org, datasetId, {
      key: k,
      value,
      year: 2024,
      unit: 'kgCO2e',
      inputUnitId: units[input],
    });
  mixes = await createDataset(t, org, { name: 'Residual mixes' });
  ids.rmDE = await item(mixes, 'rm_DE', 0.5, 'kWh');
  await item(mixes, 'rm_FR', 0.1, 'kWh');
  grids = await createDataset(t, org, { name: 'Grid factors' });
  await item(grids, 'grid_DE', 380, 'MWh');
  await item(grids, 'grid_FR', 0.05, 'kWh');
  fuels = await createDataset(t, org, { name: 'Per tonne factors' });
  await item(fuels, 'pt_DE', 2, 't');
  await item(fuels, 'pt_FR', 3, 't');
});

const save = (name: string, expressionParts: unknown[], unit = 'kgCO2e') =>
  api(t, 'POST', '/indicators', {
    token: tenant.manager.token,
    body: { name, unitId: units[unit], expressionParts },
  });

const make = async (name: string, expressionParts: unknown[], unit = 'kgCO2e') => {
  const res = await save(name, expressionParts, unit);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  ids[name] = res.body.id;
};

const value = async (name: string, body: Record<string, unknown> = {}) => {
  const res = await api(t, 'POST', '/indicators/current-values', {
    token: tenant.owner.token,
    body: { indicatorIds: [ids[name]], year: 2024, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results[ids[name]!];
};

/** max(0, electricity − certificates) */
const floored = () => [fn('max'), open, n('0'), sep, e('elec'), op('-'), e('certs'), close];

describe('functions in expressions', () => {
  it('floors market-based Scope 2 per plant, then adds the plants', async () => {
    await make('market', [...floored(), op('*'), key('rm_{site.metadata.country}', mixes)]);
    const res = await value('market', { explain: true });
    // DE 1: max(0, 1000 − 1500) = 0; DE 2: (2000 − 500) × 0.5 = 750; FR 1: (4000 − 1000) × 0.1 = 300.
    // Floored per country instead, Germany would be (3000 − 2000) × 0.5 = 500: 800 in all.
    expect(res).toMatchObject({ value: 1050, unit: 'kgCO2e', issues: [] });
    const steps = res.explain.functions as {
      function: string;
      inputs: number[];
      result: number;
      sites: string[];
    }[];
    expect(steps.map((s) => [s.sites, s.function, s.inputs, s.result]).sort()).toEqual(
      [
        [['Plant DE 1'], 'max', [0, -500], 0],
        [['Plant DE 2'], 'max', [0, 1500], 1500],
        [['Plant FR 1'], 'max', [0, 3000], 3000],
      ].sort(),
    );
    // One plant alone: the one with more certificates than consumption contributes 0.
    expect((await value('market', { siteIds: [sites.de1] })).value).toBe(0);
    expect((await value('market', { siteIds: [sites.de2] })).value).toBe(750);
  });

  it('floors per plant with a fixed coefficient too', async () => {
    await make('marketFixed', [...floored(), op('*'), { type: 'datasetItem', value: ids.rmDE! }]);
    // (0 + 1500 + 3000) × 0.5 = 2250 (without the floor: (7000 − 3000) × 0.5 = 2000).
    expect((await value('marketFixed')).value).toBe(2250);
  });

  it('applies if with a comparison, min and abs', async () => {
    // if(certificates > electricity, 0, electricity − certificates): 0 + 1500 + 3000.
    await make(
      'ifFloor',
      [
        fn('if'),
        open,
        e('certs'),
        op('>'),
        e('elec'),
        sep,
        n('0'),
        sep,
        e('elec'),
        op('-'),
        e('certs'),
        close,
      ],
      'kWh',
    );
    expect((await value('ifFloor')).value).toBe(4500);
    // min(electricity, certificates) per plant: 1000 + 500 + 1000.
    await make('covered', [fn('min'), open, e('elec'), sep, e('certs'), close], 'kWh');
    expect((await value('covered')).value).toBe(2500);
    // abs(electricity − certificates): 500 + 1500 + 3000.
    await make('gap', [fn('abs'), open, e('elec'), op('-'), e('certs'), close], 'kWh');
    expect((await value('gap')).value).toBe(5000);
  });

  it('refuses arguments of different dimensions, and a comparison outside if', async () => {
    const mixed = await save('mixed', [fn('max'), open, e('elec'), sep, e('prod'), close], 'kWh');
    expect(mixed.status).toBe(400);
    expect(mixed.body.issues[0].path).toBe('expressionParts.0');
    expect(mixed.body.issues[0].message).toContain('cannot be arguments of the same max');
    const branches = await save(
      'branches',
      [fn('if'), open, e('elec'), op('>'), n('0'), sep, e('elec'), sep, e('prod'), close],
      'kWh',
    );
    expect(branches.status).toBe(400);
    expect(branches.body.issues[0].message).toContain('cannot be the two values of if');
    const compared = await save(
      'compared',
      [fn('if'), open, e('elec'), op('<'), e('prod'), sep, n('1'), sep, n('0'), close],
      '',
    );
    expect(compared.status).toBe(400);
    expect(compared.body.issues[0].message).toContain('cannot be compared');
    const bare = await save('bare', [e('elec'), op('<'), e('certs')], 'kWh');
    expect(bare.status).toBe(400);
    expect(bare.body.issues[0]).toMatchObject({ path: 'expressionParts.1' });
    expect(bare.body.issues[0].message).toContain('only allowed as the condition of if');
    const arity = await save('arity', [fn('abs'), open, e('elec'), sep, e('certs'), close], 'kWh');
    expect(arity.status).toBe(400);
    expect(arity.body.issues[0].message).toContain('abs takes 1 argument, not 2');
    const unknown = await save('unknown', [fn('sqrt'), open, e('elec'), close], 'kWh');
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues[0].message).toContain('"sqrt" is not a function');
  });
});

describe('keys with placeholders: every coefficient they can resolve to is checked at save', () => {
  it('refuses tonnes × a per-country grid factor (per kWh or per MWh), like the fixed key', async () => {
    const templated = await save('tonnes', [e('prod'), op('*'), key('grid_{site.metadata.country}', grids)]);
    expect(templated.status).toBe(400);
    expect(templated.body.issues).toHaveLength(1);
    expect(templated.body.issues[0].path).toBe('expressionParts.0');
    expect(templated.body.issues[0].message).toBe(
      'expressionParts.0: t cannot be converted into MWh or kWh, the input unit of every coefficient "grid_{site.metadata.country}" can resolve to (grid_DE, grid_FR)',
    );
    const fixed = await save('tonnesDE', [e('prod'), op('*'), key('grid_DE', grids)]);
    expect(fixed.status).toBe(400);
    expect(fixed.body.issues[0].path).toBe('expressionParts.0');
  });

  it('refuses a key whose coefficients disagree in units, naming them', async () => {
    const odd = await createDataset(t, tenant.organizationId, { name: 'Mixed factors' });
    for (const [k, input] of [
      ['mx_DE', 'kWh'],
      ['mx_FR', 't'],
    ] as const)
      await createDatasetItem(t, tenant.organizationId, odd, {
        key: k,
        value: 1,
        year: 2024,
        unit: 'kgCO2e',
        inputUnitId: units[input],
      });
    const res = await save('mixedKeys', [e('elec'), op('*'), key('mx_{site.metadata.country}', odd)]);
    expect(res.status).toBe(400);
    expect(res.body.issues[0].path).toBe('expressionParts.2');
    expect(res.body.issues[0].message).toBe(
      'expressionParts.2: the coefficients "mx_{site.metadata.country}" can resolve to are not in the same units, so a site\'s value would depend on which one it finds: mx_DE (kgCO2e per kWh); mx_FR (kgCO2e per t)',
    );
  });

  it('refuses a result of another dimension than the indicator', async () => {
    const res = await save(
      'perKwhAsKwh',
      [e('elec'), op('*'), key('rm_{site.metadata.country}', mixes)],
      'kWh',
    );
    expect(res.status).toBe(400);
    expect(res.body.issues[0].message).toContain('rm_DE, rm_FR');
  });

  it('names every site and the indicator’s unit when a saved key no longer converts', async () => {
    await make('perTonne', [e('prod'), op('*'), key('pt_{site.metadata.country}', fuels)]);
    // 10 × 2 + 20 × 2 + 40 × 3 = 180 kgCO2e.
    expect((await value('perTonne')).value).toBe(180);
    // The coefficients are changed afterwards to per kWh: no plant's tonnes convert.
    await t.database.system((tx) =>
      tx
        .updateTable('dataset_items')
        .set({ input_unit_id: units['kWh']! })
        .where('dataset_id', '=', fuels)
        .execute(),
    );
    const res = await value('perTonne');
    expect(res.value).toBeNull();
    expect(res.issues).toHaveLength(1);
    expect(res.issues[0]).toMatchObject({
      type: 'unitMismatch',
      indicatorUnitSymbol: 'kgCO2e',
      operandUnitSymbol: 't',
      inputUnitSymbol: 'kWh',
      message:
        't cannot be converted into kWh, for 3 sites: "Plant DE 1", "Plant DE 2", "Plant FR 1": the value cannot be computed',
    });
    expect([...res.issues[0].siteNames].sort()).toEqual(['Plant DE 1', 'Plant DE 2', 'Plant FR 1']);
    expect([...res.issues[0].siteIds].sort()).toEqual([sites.de1, sites.de2, sites.fr1].sort());
  });

  it('a listed indicator’s unitMismatch names the indicator’s unit too, and the operand’s apart', async () => {
    const org = tenant.organizationId;
    const own = await createDataset(t, org, { name: 'Listed factors' });
    const itemId = await createDatasetItem(t, org, own, {
      key: 'listed',
      value: 0.4,
      year: 2024,
      unit: 'kgCO2e',
      inputUnitId: units['kWh'],
    });
    await make('listed', [e('elec'), op('*'), { type: 'datasetItem', value: itemId }]);
    await t.database.system((tx) =>
      tx.updateTable('dataset_items').set({ input_unit_id: units['t']! }).where('id', '=', itemId).execute(),
    );
    const list = await api(t, 'GET', '/indicators', { token: tenant.owner.token });
    expect(list.status).toBe(200);
    const listed = list.body.find((i: { id: string }) => i.id === ids['listed']);
    // With the dimension it now makes (energy × emissions per mass), stated apart.
    expect(listed.issues.map((i: { type: string }) => i.type).sort()).toEqual([
      'dimensionMismatch',
      'unitMismatch',
    ]);
    expect(listed.issues.find((i: { type: string }) => i.type === 'unitMismatch')).toMatchObject({
      indicatorUnitSymbol: 'kgCO2e',
      operandUnitSymbol: 'kWh',
      inputUnitSymbol: 't',
    });
  });
});
