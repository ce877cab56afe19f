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

beforeAll(async () => {
  ({ tenant, other, platform, admin } = await createDatasetWorld(t));
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

describe('GET, PUT and DELETE /dataset-items/{id}', () => {
  it('reads one item with its data', async () => {
    const item = await post(itemBody());
    const res = await api(t, 'GET', `/dataset-items/${item.body.id}`, { token: tenant.manager.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(item.body);
  });

  it('replaces the fields sent, keeps the others, and records before and after', async () => {
    const item = await post(itemBody({ metadata: { a: 1 }, tags: ['x'] }));
    const res = await api(t, 'PUT', `/dataset-items/${item.body.id}`, {
      token: tenant.owner.token,
      body: { data: { key: item.body.data.key, value: 0.3 }, year: 2025 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...item.body,
      data: { ...item.body.data, value: 0.3, unit: null },
      year: 2025,
    });

    const history = await api(t, 'GET', `/dataset-items/${item.body.id}/history`, {
      token: tenant.manager.token,
    });
    expect(history.status).toBe(200);
    expect(history.body).toHaveLength(2);
    expect(history.body[0]).toMatchObject({
      action: 'create',
      source: 'api',
      before: null,
      after: item.body,
    });
    expect(history.body[1]).toMatchObject({
      action: 'update',
      itemId: item.body.id,
      datasetId: grid,
      userId: tenant.owner.userId,
      userEmail: tenant.owner.email,
      before: item.body,
      after: res.body,
    });
  });

  it('writes nothing when nothing changes', async () => {
    const item = await post(itemBody());
    const res = await api(t, 'PUT', `/dataset-items/${item.body.id}`, {
      token: tenant.owner.token,
      body: { name: item.body.name },
    });
    expect(res.body).toEqual(item.body);
    const history = await api(t, 'GET', `/dataset-items/${item.body.id}/history`, {
      token: tenant.owner.token,
    });
    expect(history.body).toHaveLength(1);
  });

  it('400 naming data.key when the change would repeat a (key, year)', async () => {
    const a = await post(itemBody({ year: 2020 }));
    const b = await post(itemBody({ year: 2020 }));
    const res = await api(t, 'PUT', `/dataset-items/${b.body.id}`, {
      token: tenant.owner.token,
      body: { data: a.body.data },
    });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([expect.objectContaining({ path: 'data.key' })]);
    for (const body of [{ datasetId: grid }, { year: 'soon' }, { data: { key: 'k' } }]) {
      expect(
        (await api(t, 'PUT', `/dataset-items/${b.body.id}`, { token: tenant.owner.token, body })).status,
      ).toBe(400);
    }
  });

  it('deletes an item and answers with it; its history stays readable', async () => {
    const item = await post(itemBody());
    const res = await api(t, 'DELETE', `/dataset-items/${item.body.id}`, { token: tenant.owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(item.body);
    expect(
      (await api(t, 'GET', `/dataset-items/${item.body.id}`, { token: tenant.owner.token })).status,
    ).toBe(404);
    const again = await api(t, 'DELETE', `/dataset-items/${item.body.id}`, { token: tenant.owner.token });
    expect(again.status).toBe(404);
    const history = await api(t, 'GET', `/dataset-items/${item.body.id}/history`, {
      token: tenant.owner.token,
    });
    expect(history.body.map((h: { action: string }) => h.action)).toEqual(['create', 'delete']);
    expect(history.body[1]).toMatchObject({ before: item.body, after: null });
  });

  it('404 for unknown, malformed or another organization’s item ids', async () => {
    const theirsDs = (await buildDataset(t, { tenant: other })).id;
    const theirs = await post(itemBody({ datasetId: theirsDs }), other.owner);
    for (const id of [theirs.body.id, '00000000-0000-4000-8000-000000000000', 'x']) {
      const token = tenant.owner.token;
      expect((await api(t, 'GET', `/dataset-items/${id}`, { token })).status).toBe(404);
      expect((await api(t, 'PUT', `/dataset-items/${id}`, { token, body: { name: 'n' } })).status).toBe(404);
      expect((await api(t, 'DELETE', `/dataset-items/${id}`, { token })).status).toBe(404);
      expect((await api(t, 'GET', `/dataset-items/${id}/history`, { token })).status).toBe(404);
    }
  });

  it('common items: readable by everyone, changed only by admins of the owning organization', async () => {
    const common = (await buildDataset(t, { tenant: platform, isCommon: true })).id;
    const item = await post(itemBody({ datasetId: common }), admin);
    const token = tenant.owner.token;
    expect((await api(t, 'GET', `/dataset-items/${item.body.id}`, { token })).status).toBe(200);
    expect((await api(t, 'GET', `/dataset-items/${item.body.id}/history`, { token })).status).toBe(200);
    expect(
      (await api(t, 'PUT', `/dataset-items/${item.body.id}`, { token, body: { name: 'n' } })).status,
    ).toBe(403);
    expect((await api(t, 'DELETE', `/dataset-items/${item.body.id}`, { token })).status).toBe(403);
    const byAdmin = await api(t, 'PUT', `/dataset-items/${item.body.id}`, {
      token: admin.token,
      body: { name: 'n' },
    });
    expect(byAdmin.status).toBe(200);
    expect((await api(t, 'DELETE', `/dataset-items/${item.body.id}`, { token: admin.token })).status).toBe(
      200,
    );
  });

  it('403 below the required role, 401 without a credential', async () => {
    const item = await post(itemBody());
    const id = item.body.id;
    for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
      expect(
        (await api(t, 'PUT', `/dataset-items/${id}`, { token: member.token, body: { name: 'n' } })).status,
      ).toBe(403);
      expect((await api(t, 'DELETE', `/dataset-items/${id}`, { token: member.token })).status).toBe(403);
    }
    for (const member of [tenant.collector, tenant.viewer]) {
      expect((await api(t, 'GET', `/dataset-items/${id}`, { token: member.token })).status).toBe(403);
      expect((await api(t, 'GET', `/dataset-items/${id}/history`, { token: member.token })).status).toBe(403);
    }
    expect((await api(t, 'PUT', `/dataset-items/${id}`, { body: { name: 'n' } })).status).toBe(401);
    expect((await api(t, 'DELETE', `/dataset-items/${id}`)).status).toBe(401);
    expect((await api(t, 'GET', `/dataset-items/${id}/history`)).status).toBe(401);
  });
});
