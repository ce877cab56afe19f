import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createDatasetWorld } from '../../../test/helpers/dataset-world.ts';
import type { Member, Tenant } from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
let other: Tenant;
/** A platform admin (SDCS_ADMIN_EMAILS), owner of the organization `platform`. */
let admin: Member;
let platform: Tenant;

beforeAll(async () => {
  ({ tenant, other, platform, admin } = await createDatasetWorld(t));
});

const create = (member: Member, body: object) => api(t, 'POST', '/datasets', { token: member.token, body });

describe('POST /datasets', () => {
  it('creates a dataset of the caller’s organization', async () => {
    const res = await create(tenant.owner, { name: 'Grid factors', description: 'national grids' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Grid factors',
      description: 'national grids',
      dataSource: null,
      version: null,
      isCommon: false,
      builtIn: false,
      readOnly: false,
      licence: null,
      link: null,
      supersededById: null,
      organizationId: tenant.organizationId,
      itemCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(Date.parse(res.body.createdAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('stores dataSource and version, returns them on GET and PUT, and beside the export', async () => {
    const res = await create(tenant.owner, {
      name: 'DEFRA factors',
      dataSource: 'UK government GHG conversion factors',
      version: '2025 v1.1',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      dataSource: 'UK government GHG conversion factors',
      version: '2025 v1.1',
    });
    const id = res.body.id;
    const read = await api(t, 'GET', `/datasets/${id}`, { token: tenant.owner.token });
    expect(read.body).toMatchObject({
      dataSource: 'UK government GHG conversion factors',
      version: '2025 v1.1',
    });
    const changed = await api(t, 'PUT', `/datasets/${id}`, {
      token: tenant.owner.token,
      body: { version: '2025 v2' },
    });
    expect(changed.body).toMatchObject({
      dataSource: 'UK government GHG conversion factors',
      version: '2025 v2',
    });
    const exported = await api(t, 'GET', `/datasets/${id}/export`, { token: tenant.owner.token });
    expect(exported.body).toMatchObject({
      dataSource: 'UK government GHG conversion factors',
      version: '2025 v2',
    });
    const tooLong = await create(tenant.owner, { name: 'x', version: 'v'.repeat(101) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.issues[0].path).toBe('version');
  });

  it('lets platform admins create common datasets, and nobody else (403)', async () => {
    const denied = await create(tenant.owner, { name: 'Shared', isCommon: true });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    const res = await create(admin, { name: 'DEFRA 2024', isCommon: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ isCommon: true, organizationId: platform.organizationId });
  });

  it('400 for a missing or empty name, a non-boolean isCommon or extra fields', async () => {
    for (const body of [{}, { name: '' }, { name: 'x', isCommon: 'yes' }, { name: 'x', version: 2 }]) {
      const res = await create(tenant.owner, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.issues.length).toBeGreaterThan(0);
    }
  });

  it('403 for managers and below, 401 without a credential', async () => {
    for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
      expect((await create(member, { name: 'nope' })).status).toBe(403);
    }
    expect((await api(t, 'POST', '/datasets', { body: { name: 'x' } })).status).toBe(401);
  });
});

describe('GET /datasets and /datasets/{id}', () => {
  it('shows the organization’s own datasets and common ones, never another organization’s', async () => {
    const own = await create(tenant.owner, { name: 'Own list test' });
    const theirs = await create(other.owner, { name: 'Their private' });
    const common = await create(admin, { name: 'Common list test', isCommon: true });

    const res = await api(t, 'GET', '/datasets', { token: tenant.manager.token });
    expect(res.status).toBe(200);
    const ids = res.body.map((d: { id: string }) => d.id);
    expect(ids).toContain(own.body.id);
    expect(ids).toContain(common.body.id);
    expect(ids).not.toContain(theirs.body.id);

    const one = await api(t, 'GET', `/datasets/${common.body.id}`, { token: tenant.owner.token });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ name: 'Common list test', isCommon: true });
  });

  it('counts the items', async () => {
    const ds = await create(tenant.owner, { name: 'Counted' });
    for (const key of ['a', 'b']) {
      await api(t, 'POST', '/dataset-items', {
        token: tenant.owner.token,
        body: { name: key, datasetId: ds.body.id, data: { key, value: 1 }, year: 2024 },
      });
    }
    const res = await api(t, 'GET', `/datasets/${ds.body.id}`, { token: tenant.owner.token });
    expect(res.body.itemCount).toBe(2);
  });

  it('404 for unknown, malformed or another organization’s private dataset ids', async () => {
    const theirs = await create(other.owner, { name: 'Hidden' });
    for (const id of [theirs.body.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await api(t, 'GET', `/datasets/${id}`, { token: tenant.owner.token });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('403 for collectors and viewers', async () => {
    const ds = await create(tenant.owner, { name: 'Readable by managers' });
    for (const member of [tenant.collector, tenant.viewer]) {
      expect((await api(t, 'GET', '/datasets', { token: member.token })).status).toBe(403);
      expect((await api(t, 'GET', `/datasets/${ds.body.id}`, { token: member.token })).status).toBe(403);
    }
  });
});

describe('PUT /datasets/{id}', () => {
  it('replaces the fields sent and keeps the others', async () => {
    const ds = await create(tenant.owner, { name: 'Before', description: 'kept' });
    const res = await api(t, 'PUT', `/datasets/${ds.body.id}`, {
      token: tenant.owner.token,
      body: { name: 'After' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'After', description: 'kept' });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(ds.body.updatedAt));
    const cleared = await api(t, 'PUT', `/datasets/${ds.body.id}`, {
      token: tenant.owner.token,
      body: { description: null },
    });
    expect(cleared.body).toMatchObject({ name: 'After', description: null });
  });

  it('lets only platform admins share a dataset or change a common one', async () => {
    const ds = await create(tenant.owner, { name: 'Private' });
    const share = await api(t, 'PUT', `/datasets/${ds.body.id}`, {
      token: tenant.owner.token,
      body: { isCommon: true },
    });
    expect(share.status).toBe(403);
    // Sending the value it already has is no change.
    const same = await api(t, 'PUT', `/datasets/${ds.body.id}`, {
      token: tenant.owner.token,
      body: { isCommon: false },
    });
    expect(same.status).toBe(200);

    const common = await create(admin, { name: 'Common edit test', isCommon: true });
    const byOwner = await api(t, 'PUT', `/datasets/${common.body.id}`, {
      token: tenant.owner.token,
      body: { name: 'hijacked' },
    });
    expect(byOwner.status).toBe(403);
    const byColleague = await api(t, 'PUT', `/datasets/${common.body.id}`, {
      token: platform.owner.token,
      body: { name: 'not an admin' },
    });
    expect(byColleague.status).toBe(403);
    const byAdmin = await api(t, 'PUT', `/datasets/${common.body.id}`, {
      token: admin.token,
      body: { name: 'Common, renamed', isCommon: false },
    });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toMatchObject({ name: 'Common, renamed', isCommon: false });
    const hidden = await api(t, 'GET', `/datasets/${common.body.id}`, { token: tenant.owner.token });
    expect(hidden.status).toBe(404);
  });

  it('400 for invalid fields, 404 for other ids, 403 below owner', async () => {
    const ds = await create(tenant.owner, { name: 'Validated' });
    for (const body of [{ name: '' }, { name: 5 }, { other: 1 }]) {
      const res = await api(t, 'PUT', `/datasets/${ds.body.id}`, { token: tenant.owner.token, body });
      expect(res.status).toBe(400);
    }
    const theirs = await create(other.owner, { name: 'Theirs' });
    for (const id of [theirs.body.id, 'nope']) {
      const res = await api(t, 'PUT', `/datasets/${id}`, { token: tenant.owner.token, body: { name: 'x' } });
      expect(res.status).toBe(404);
    }
    const res = await api(t, 'PUT', `/datasets/${ds.body.id}`, {
      token: tenant.manager.token,
      body: { name: 'x' },
    });
    expect(res.status).toBe(403);
  });
});

describe('DELETE /datasets/{id}', () => {
  it('deletes the dataset with its items and answers with the dataset', async () => {
    const ds = await create(tenant.owner, { name: 'Doomed' });
    const item = await api(t, 'POST', '/dataset-items', {
      token: tenant.owner.token,
      body: { name: 'x', datasetId: ds.body.id, data: { key: 'x', value: 2 }, year: 2024 },
    });
    const res = await api(t, 'DELETE', `/datasets/${ds.body.id}`, { token: tenant.owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: ds.body.id, name: 'Doomed', itemCount: 1 });
    expect((await api(t, 'GET', `/datasets/${ds.body.id}`, { token: tenant.owner.token })).status).toBe(404);
    const gone = await api(t, 'PUT', `/dataset-items/${item.body.id}`, {
      token: tenant.owner.token,
      body: { name: 'y' },
    });
    expect(gone.status).toBe(404);
    // The items' deletion is in their history.
    const history = await api(t, 'GET', `/dataset-items/${item.body.id}/history`, {
      token: tenant.owner.token,
    });
    expect(history.body.map((h: { action: string; source: string }) => `${h.action}:${h.source}`)).toEqual([
      'create:api',
      'delete:dataset-delete',
    ]);
    expect(history.body[1].before).toEqual(item.body);
    expect(history.body[1].after).toBeNull();
  });

  it('403 for a common dataset unless admin, 404 for other ids, 403 below owner', async () => {
    const common = await create(admin, { name: 'Common delete test', isCommon: true });
    expect(
      (await api(t, 'DELETE', `/datasets/${common.body.id}`, { token: tenant.owner.token })).status,
    ).toBe(403);
    expect((await api(t, 'DELETE', `/datasets/${common.body.id}`, { token: admin.token })).status).toBe(200);

    const theirs = await create(other.owner, { name: 'Theirs too' });
    expect(
      (await api(t, 'DELETE', `/datasets/${theirs.body.id}`, { token: tenant.owner.token })).status,
    ).toBe(404);
    expect((await api(t, 'DELETE', '/datasets/not-a-uuid', { token: tenant.owner.token })).status).toBe(404);
    const mine = await create(tenant.owner, { name: 'Mine' });
    expect(
      (await api(t, 'DELETE', `/datasets/${mine.body.id}`, { token: tenant.manager.token })).status,
    ).toBe(403);
    expect((await api(t, 'DELETE', `/datasets/${mine.body.id}`)).status).toBe(401);
  });
});

describe('row-level security', () => {
  it('hides another organization’s private datasets and items even from a query without filters', async () => {
    const theirs = await create(other.owner, { name: 'RLS private' });
    await api(t, 'POST', '/dataset-items', {
      token: other.owner.token,
      body: { name: 'k', datasetId: theirs.body.id, data: { key: 'rls-k', value: 1 }, year: 2024 },
    });
    const common = await create(admin, { name: 'RLS common', isCommon: true });
    const seen = await t.database.tenant(tenant.organizationId, async (tx) => ({
      datasets: (await tx.selectFrom('datasets').select('id').execute()).map((r) => r.id),
      items: await tx.selectFrom('dataset_items').select('key').where('key', '=', 'rls-k').execute(),
    }));
    expect(seen.datasets).toContain(common.body.id);
    expect(seen.datasets).not.toContain(theirs.body.id);
    expect(seen.items).toEqual([]);
  });

  it('refuses writes to another organization’s common dataset at the database level', async () => {
    const common = await create(admin, { name: 'RLS write', isCommon: true });
    const changed = await t.database.tenant(tenant.organizationId, (tx) =>
      tx.updateTable('datasets').set({ name: 'hacked' }).where('id', '=', common.body.id).executeTakeFirst(),
    );
    expect(Number(changed.numUpdatedRows)).toBe(0);
    await expect(
      t.database.tenant(tenant.organizationId, (tx) =>
        tx
          .insertInto('dataset_items')
          .values({
            organization_id: platform.organizationId,
            dataset_id: common.body.id,
            name: 'x',
            key: 'x',
            value: 1,
            unit: null,
            year: 2024,
            description: null,
            link: null,
            metadata: '{}',
            input_unit_id: null,
          })
          .execute(),
      ),
    ).rejects.toThrow();
  });
});
