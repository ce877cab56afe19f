import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { buildDataset } from '../../../test/helpers/builders.ts';
import { createDatasetWorld } from '../../../test/helpers/dataset-world.ts';
import type { Member, Tenant } from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
let other: Tenant;
let platform: Tenant;
let admin: Member;
let grid: string;
let kWhId: string;

beforeAll(async () => {
  const world = await createDatasetWorld(t);
  ({ tenant, other, platform, admin } = world);
  kWhId = world.units['kWh']!;
  grid = (await buildDataset(t, { tenant, name: 'Grid factors' })).id;
});

let n = 0;
const itemBody = (fields: Record<string, unknown> = {}) => ({
  name: 'Electricity, national grid',
  datasetId: grid,
  data: { key: `electricity-${++n}`, value: 0.233, unit: 'kgCO2e' },
  year: 2024,
  ...fields,
});
const post = (body: object, member: Member = tenant.owner) =>
  api(t, 'POST', '/dataset-items', { token: member.token, body });

describe('POST /dataset-items', () => {
  it('stores a coefficient and answers with exactly the documented fields', async () => {
    const body = itemBody({
      description: 'location-based',
      link: 'https://example.org/factors',
      metadata: { source: 'DEFRA', scope: 2 },
      tags: ['electricity', 'scope 2'],
      inputUnitId: kWhId,
    });
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: body.name,
      description: 'location-based',
      link: 'https://example.org/factors',
      year: 2024,
      tags: ['electricity', 'scope 2'],
      data: body.data,
      metadata: { source: 'DEFRA', scope: 2 },
      inputUnitId: kWhId,
    });
  });

  it('fills in what is optional: no unit, empty metadata and tags, and the current year', async () => {
    const res = await post({ name: 'Bare', datasetId: grid, data: { key: 'bare', value: -1.5e-9 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      year: new Date().getUTCFullYear(),
      data: { key: 'bare', value: -1.5e-9, unit: null },
      metadata: {},
      tags: [],
      description: null,
      link: null,
      inputUnitId: null,
    });
  });

  it('400 naming data.key when the key already has an item for that year; other years are fine', async () => {
    const first = await post(itemBody({ data: { key: 'diesel', value: 2.5 }, year: 2023 }));
    expect(first.status).toBe(200);
    expect((await post(itemBody({ data: { key: 'diesel', value: 2.6 }, year: 2024 }))).status).toBe(200);
    const dup = await post(itemBody({ data: { key: 'diesel', value: 9 }, year: 2023 }));
    expect(dup.status).toBe(400);
    expect(dup.body.issues).toEqual([expect.objectContaining({ path: 'data.key' })]);
    expect(dup.body.issues[0].message).toContain('diesel');
    // The same key in another dataset is another coefficient.
    const elsewhere = (await buildDataset(t, { tenant })).id;
    expect(
      (await post(itemBody({ datasetId: elsewhere, data: { key: 'diesel', value: 1 }, year: 2023 }))).status,
    ).toBe(200);
  });

  it('400 naming datasetId for an unknown, malformed or another organization’s dataset', async () => {
    const theirs = (await buildDataset(t, { tenant: other })).id;
    for (const datasetId of [theirs, '00000000-0000-4000-8000-000000000000', 'grid']) {
      const res = await post(itemBody({ datasetId }));
      expect(res.status).toBe(400);
      expect(res.body.issues).toEqual([expect.objectContaining({ path: 'datasetId' })]);
    }
  });

  it('400 naming inputUnitId or data.unit for units the organization cannot use', async () => {
    const custom = await api(t, 'POST', '/units', {
      token: other.owner.token,
      body: { symbol: 'parcel', name: 'parcel', dimension: 'count', factorToBase: 1 },
    });
    for (const inputUnitId of [custom.body.id, '00000000-0000-4000-8000-000000000000', 'kWh']) {
      const res = await post(itemBody({ inputUnitId }));
      expect(res.status).toBe(400);
      expect(res.body.issues).toEqual([expect.objectContaining({ path: 'inputUnitId' })]);
    }
    const unit = await post(itemBody({ data: { key: 'u', value: 1, unit: 'kg CO2e' } }));
    expect(unit.status).toBe(400);
    expect(unit.body.issues).toEqual([expect.objectContaining({ path: 'data.unit' })]);
  });

  it('lets an organization use its own units, but a common dataset only catalog units', async () => {
    const own = await api(t, 'POST', '/units', {
      token: tenant.owner.token,
      body: { symbol: 'crate', name: 'crate', dimension: 'count', factorToBase: 1 },
    });
    expect((await post(itemBody({ inputUnitId: own.body.id }))).status).toBe(200);

    const adminUnit = await api(t, 'POST', '/units', {
      token: admin.token,
      body: { symbol: 'pallet', name: 'pallet', dimension: 'count', factorToBase: 1 },
    });
    const common = (await buildDataset(t, { tenant: platform, isCommon: true })).id;
    const res = await post(itemBody({ datasetId: common, inputUnitId: adminUnit.body.id }), admin);
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([expect.objectContaining({ path: 'inputUnitId' })]);
    expect((await post(itemBody({ datasetId: common, inputUnitId: kWhId }), admin)).status).toBe(200);
  });

  it('400 for keys with surrounding spaces or control characters, missing or mistyped fields', async () => {
    const bodies = [
      itemBody({ data: { key: ' padded', value: 1 } }),
      itemBody({ data: { key: 'line\nbreak', value: 1 } }),
      itemBody({ data: { key: 'k', value: '1' } }),
      itemBody({ data: { key: 'k' } }),
      itemBody({ data: { value: 1 } }),
      itemBody({ data: { key: 'k', value: 1, extra: 1 } }),
      itemBody({ name: '' }),
      itemBody({ year: 1800 }),
      itemBody({ year: 2024.5 }),
      itemBody({ tags: 'a' }),
      itemBody({ metadata: [] }),
      itemBody({ unknown: true }),
      { name: 'x', data: { key: 'k', value: 1 } },
    ];
    for (const body of bodies) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.issues.length).toBeGreaterThan(0);
    }
  });

  it('403 below owner, and for owners writing to a common dataset; 401 without a credential', async () => {
    for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
      expect((await post(itemBody(), member)).status).toBe(403);
    }
    const common = (await buildDataset(t, { tenant: platform, isCommon: true })).id;
    expect((await post(itemBody({ datasetId: common }))).status).toBe(403);
    expect((await post(itemBody({ datasetId: common }), platform.owner)).status).toBe(403);
    expect((await api(t, 'POST', '/dataset-items', { body: itemBody() })).status).toBe(401);
  });
});

describe('GET /dataset-items', () => {
  it('lists own and common items with exactly the list fields, never another organization’s', async () => {
    const own = await post(itemBody({ metadata: { m: 1 }, tags: ['t'], inputUnitId: kWhId }));
    const common = (await buildDataset(t, { tenant: platform, name: 'Common list', isCommon: true })).id;
    const shared = await post(itemBody({ datasetId: common }), admin);
    const theirsDs = (await buildDataset(t, { tenant: other })).id;
    const theirs = await post(itemBody({ datasetId: theirsDs }), other.owner);

    const res = await api(t, 'GET', '/dataset-items', { token: tenant.manager.token });
    expect(res.status).toBe(200);
    const byId = new Map(res.body.map((i: { id: string }) => [i.id, i]));
    expect(byId.get(own.body.id)).toEqual({
      id: own.body.id,
      name: own.body.name,
      year: 2024,
      datasetId: grid,
      datasetName: 'Grid factors',
      tags: ['t'],
      metadata: { m: 1 },
      inputUnitId: kWhId,
      data: own.body.data,
    });
    expect(own.body.data).toMatchObject({ value: 0.233, unit: 'kgCO2e' });
    expect(byId.get(shared.body.id)).toMatchObject({ datasetId: common, datasetName: 'Common list' });
    expect(byId.has(theirs.body.id)).toBe(false);
  });

  it('403 for collectors and viewers, 401 without a credential', async () => {
    expect((await api(t, 'GET', '/dataset-items', { token: tenant.collector.token })).status).toBe(403);
    expect((await api(t, 'GET', '/dataset-items', { token: tenant.viewer.token })).status).toBe(403);
    expect((await api(t, 'GET', '/dataset-items')).status).toBe(401);
  });
});
