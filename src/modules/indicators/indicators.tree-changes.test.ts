import { beforeAll, describe, expect, it } from 'vitest';
import { api, type TestContext, testConfig, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  createDataset,
  createDatasetItem,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { buildApp } from '../../app.ts';
import { Database } from '../../db/client.ts';
import { siteTree, siteTreeCache } from '../sites/sites.tree.ts';

/**
 * The site tree is read from a snapshot kept in process while its version (bumped by every
 * write to sites, in the writing transaction) is unchanged: each change below must be seen by
 * the very next read, including one made through another instance of the service.
 *
 * Sites: Group > France (country FR) > Plant A; Group > Plant C (country DE). Electricity in
 * 2024: Plant A 1,000 kWh, Plant C 2,000 kWh. Factors per kWh: grid_FR 0.05, grid_DE 0.4,
 * grid_PL 1 (kgCO2e); code_PA 2.
 */
const t = useTestApp();
let tenant: Tenant;
let formId: string;
let elec: string;
const sites: Record<string, string> = {};
const ids: Record<string, string> = {};

const el = (value: string) => ({ type: 'formElement', value });
const op = (value: string) => ({ type: 'operator', value });

async function submit(siteId: string, value: number): Promise<void> {
  const res = await api(t, 'POST', '/form-submissions', {
    token: tenant.owner.token,
    body: { formId, siteId, year: 2024, values: [{ elementKey: 'elec', periodUnit: 1, value }] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  tenant = await createTenant(t);
  const org = tenant.organizationId;
  const units = Object.fromEntries(
    (
      await t.database.system((tx) =>
        tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
      )
    ).map((u) => [u.symbol, u.id]),
  );
  sites.group = await createSite(t, org, { name: 'Group' });
  sites.france = await createSite(t, org, {
    name: 'France',
    code: 'FR1',
    parentId: sites.group,
    metadata: { country: 'FR' },
  });
  sites.a = await createSite(t, org, { name: 'Plant A', parentId: sites.france });
  sites.c = await createSite(t, org, { name: 'Plant C', parentId: sites.group, metadata: { country: 'DE' } });
  const form = await createForm(t, tenant, {
    periodType: 'MONTHLY',
    elements: [{ key: 'elec', label: 'Electricity', type: 'NUMBER', unitId: units['kWh'] }],
  });
  formId = form.id;
  elec = form.elements[0]!.id;
  await activateForm(t, tenant, formId, [sites.a!, sites.c!], [2024]);
  await submit(sites.a!, 1000);
  await submit(sites.c!, 2000);
  const datasetId = await createDataset(t, org, { name: 'Factors' });
  for (const [key, value] of [
    ['grid_FR', 0.05],
    ['grid_DE', 0.4],
    ['grid_PL', 1],
    ['code_PA', 2],
  ] as const)
    await createDatasetItem(t, org, datasetId, {
      key,
      value,
      year: 2024,
      unit: 'kgCO2e',
      inputUnitId: units['kWh'],
    });
  const make = async (name: string, parts: unknown[], unit: string) => {
    const res = await api(t, 'POST', '/indicators', {
      token: tenant.owner.token,
      body: { name, unitId: units[unit], expressionParts: parts },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids[name] = res.body.id;
  };
  const item = (value: string) => ({ type: 'datasetItem', value, metadata: { datasetId } });
  await make('scope2', [el(elec), op('*'), item('grid_{site.metadata.country}')], 'kgCO2e');
  await make('byCode', [el(elec), op('*'), item('code_{site.code}')], 'kgCO2e');
  await make('elec', [el(elec)], 'kWh');
});

/** The current 2024 value of an indicator (through `ctx`, by default this file's app). */
async function value(name: string, body: Record<string, unknown> = {}, ctx: TestContext = t) {
  const res = await api(ctx, 'POST', '/indicators/current-values', {
    token: tenant.owner.token,
    body: { indicatorIds: [ids[name]], year: 2024, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results[ids[name]!];
}

async function patchSite(id: string, body: Record<string, unknown>, ctx: TestContext = t) {
  const res = await api(ctx, 'PATCH', `/sites/${id}`, { token: tenant.owner.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('indicators after a change to the site tree', () => {
  it('use a site’s new metadata and code at once', async () => {
    expect((await value('scope2')).value).toBe(1000 * 0.05 + 2000 * 0.4);
    await patchSite(sites.france!, { metadata: { country: 'DE' } });
    expect((await value('scope2')).value).toBe(1000 * 0.4 + 2000 * 0.4);
    await patchSite(sites.france!, { metadata: { country: 'FR' } });
    expect((await value('scope2')).value).toBe(1000 * 0.05 + 2000 * 0.4);

    // No site has a code yet: every site with data is left out, named in the issues.
    const before = await value('byCode');
    expect(before.value).toBeNull();
    expect(before.issues.map((i: { siteId: string }) => i.siteId).sort()).toEqual([sites.a, sites.c].sort());
    await patchSite(sites.a!, { code: 'PA' });
    const after = await value('byCode');
    expect(after.value).toBe(1000 * 2);
    expect(after.issues.map((i: { siteId: string }) => i.siteId)).toEqual([sites.c]);
    await patchSite(sites.a!, { code: null });
  });

  it('count a moved site under its new parent at once', async () => {
    expect((await value('elec', { siteIds: [sites.france] })).value).toBe(1000);
    expect((await value('scope2', { siteIds: [sites.france] })).value).toBe(50);
    await patchSite(sites.c!, { parentId: sites.france });
    expect((await value('elec', { siteIds: [sites.france] })).value).toBe(3000);
    // Plant C keeps its own country under France.
    expect((await value('scope2', { siteIds: [sites.france] })).value).toBe(50 + 800);
    await patchSite(sites.c!, { parentId: sites.group });
    expect((await value('elec', { siteIds: [sites.france] })).value).toBe(1000);
    expect((await value('scope2', { siteIds: [sites.france] })).value).toBe(50);
  });

  it('leave out a deactivated form-site at once, and count it again when reactivated', async () => {
    expect((await value('elec')).value).toBe(3000);
    await activateForm(t, tenant, formId, [sites.a!], [2024]);
    expect((await value('elec')).value).toBe(1000);
    expect((await value('scope2')).value).toBe(50);
    await activateForm(t, tenant, formId, [sites.a!, sites.c!], [2024]);
    expect((await value('elec')).value).toBe(3000);
  });

  it('see imported, created and deleted sites at once', async () => {
    const explained = async () => (await value('elec', { explain: true })).explain.scope.siteCount;
    expect(await explained()).toBe(4);
    const res = await api(t, 'POST', '/sites/import', {
      token: tenant.owner.token,
      body: {
        organizationId: tenant.organizationId,
        csvContent: 'name,code,parent,metadata.country\nPlant G,PG,FR1,PL\n',
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await explained()).toBe(5);
    const listed = await api(t, 'GET', '/sites?q=Plant G', { token: tenant.owner.token });
    sites.g = listed.body[0].id;
    await activateForm(t, tenant, formId, [sites.a!, sites.c!, sites.g!], [2024]);
    await submit(sites.g!, 100);
    // Plant G, under France, has its own country: PL.
    expect((await value('scope2')).value).toBe(50 + 800 + 100);
    expect((await value('scope2', { siteIds: [sites.france] })).value).toBe(50 + 100);

    const created = await api(t, 'POST', '/sites', {
      token: tenant.owner.token,
      body: { name: 'Empty', parentId: sites.group },
    });
    expect(created.status).toBe(200);
    expect(await explained()).toBe(6);
    const removed = await api(t, 'DELETE', `/sites/${created.body.id}`, { token: tenant.owner.token });
    expect(removed.status).toBe(200);
    expect(await explained()).toBe(5);
  });

  it('keeps no snapshot of a tree changed by a transaction rolled back', async () => {
    expect((await value('elec', { siteIds: [sites.france] })).value).toBe(1100);
    // A move inside a transaction that reads (and so snapshots) the moved tree, then rolls back.
    await t.database
      .tenant(tenant.organizationId, async (tx) => {
        await tx.updateTable('sites').set({ parent_id: sites.france! }).where('id', '=', sites.c!).execute();
        expect((await siteTree(tx, tenant.organizationId)).subtree(sites.france!)).toContain(sites.c);
        throw new Error('roll back');
      })
      .catch((e: Error) => expect(e.message).toBe('roll back'));
    expect((await value('elec', { siteIds: [sites.france] })).value).toBe(1100);
  });
});

describe('two instances of the service on one database', () => {
  it.skipIf(!process.env['DATABASE_URL'])('read on one what was written on the other', async () => {
    const database = await Database.open({ databaseUrl: t.url! });
    const other = { app: await buildApp({ database, config: testConfig() }), database, config: t.config };
    await other.app.ready();
    try {
      expect((await value('scope2', {}, other)).value).toBe(50 + 800 + 100);
      const held = siteTreeCache.versionOf(tenant.organizationId);
      expect(held).not.toBeNull();
      // The write leaves this process's snapshot as it was: the other instance learns of it
      // from the tree's version in the database only (both instances share the process here).
      await patchSite(sites.c!, { metadata: { country: 'FR' } });
      expect(siteTreeCache.versionOf(tenant.organizationId)).toBe(held);
      expect((await value('scope2', {}, other)).value).toBe(50 + 2000 * 0.05 + 100);
      await patchSite(sites.c!, { parentId: sites.france }, other);
      expect((await value('elec', { siteIds: [sites.france] })).value).toBe(3100);
      await patchSite(sites.c!, { parentId: sites.group, metadata: { country: 'DE' } }, other);
      expect((await value('scope2')).value).toBe(50 + 800 + 100);
    } finally {
      await other.app.close();
      await database.close();
    }
  });
});
