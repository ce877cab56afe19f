import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  assignSites,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;

const put = (body: unknown, token = tenant.owner.token) => api(t, 'PUT', '/form-sites', { token, body });
const list = async (query: string, token = tenant.owner.token) => {
  const res = await api(t, 'GET', `/form-sites?${query}`, { token });
  expect(res.status).toBe(200);
  return (res.body as { siteId: string; year: number }[]).map((r) => `${r.siteId}|${r.year}`).sort();
};
const pairs = (sites: string[], years: number[]) =>
  years.flatMap((y) => sites.map((s) => `${s}|${y}`)).sort();

beforeAll(async () => {
  tenant = await createTenant(t);
});

describe('PUT /form-sites', () => {
  it('makes the listed years’ active sites exactly siteIds and leaves other years alone', async () => {
    const [a, b, c] = [
      await createSite(t, tenant.organizationId),
      await createSite(t, tenant.organizationId),
      await createSite(t, tenant.organizationId),
    ];
    const form = await createForm(t, tenant);
    const first = await put({ formId: form.id, siteIds: [a, b], years: [2024, 2025] });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true });
    expect(await list(`formId=${form.id}`)).toEqual(pairs([a!, b!], [2024, 2025]));

    expect((await put({ formId: form.id, siteIds: [b, c], years: [2025] })).status).toBe(200);
    expect(await list(`formId=${form.id}`)).toEqual(
      [...pairs([a!, b!], [2024]), ...pairs([b!, c!], [2025])].sort(),
    );
    expect(await list(`formId=${form.id}&year=2025&siteId=${c}`)).toEqual(pairs([c!], [2025]));

    const res = await api(t, 'GET', `/form-sites?formId=${form.id}&year=2025`, { token: tenant.owner.token });
    expect(res.body[0]).toEqual({
      id: expect.any(String),
      formId: form.id,
      siteId: expect.any(String),
      year: 2025,
    });

    expect((await put({ formId: form.id, siteIds: [], years: [2024] })).status).toBe(200);
    expect(await list(`formId=${form.id}`)).toEqual(pairs([b!, c!], [2025]));
  });

  it('deactivates instead of deleting, and re-adding revives the same row', async () => {
    const site = await createSite(t, tenant.organizationId);
    const form = await createForm(t, tenant);
    await put({ formId: form.id, siteIds: [site], years: [2025] });
    const before = await api(t, 'GET', `/form-sites?formId=${form.id}`, { token: tenant.owner.token });
    await put({ formId: form.id, siteIds: [], years: [2025] });
    const rows = await t.database.system((tx) =>
      tx.selectFrom('form_sites').select(['id', 'active']).where('form_id', '=', form.id).execute(),
    );
    expect(rows).toEqual([{ id: before.body[0].id, active: false }]);
    await put({ formId: form.id, siteIds: [site, site], years: [2025, 2025] });
    const after = await api(t, 'GET', `/form-sites?formId=${form.id}`, { token: tenant.owner.token });
    expect(after.body).toEqual(before.body);
  });

  it('404 when the form is unknown, malformed, deleted or another tenant’s', async () => {
    const site = await createSite(t, tenant.organizationId);
    const other = await createTenant(t);
    const theirs = await createForm(t, other);
    const deleted = await createForm(t, tenant);
    await api(t, 'DELETE', `/forms/${deleted.id}`, { token: tenant.owner.token });
    for (const formId of ['00000000-0000-4000-8000-000000000000', 'x', theirs.id, deleted.id]) {
      const res = await put({ formId, siteIds: [site], years: [2025] });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('400 naming each unknown site and out-of-range years', async () => {
    const site = await createSite(t, tenant.organizationId);
    const other = await createTenant(t);
    const theirSite = await createSite(t, other.organizationId);
    const form = await createForm(t, tenant);
    const res = await put({ formId: form.id, siteIds: [site, theirSite, 'bad'], years: [2025] });
    expect(res.status).toBe(400);
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(['siteIds.1', 'siteIds.2']);
    expect((await put({ formId: form.id, siteIds: [site], years: [] })).status).toBe(200);
    for (const years of [[1899], [2201], ['2025']]) {
      const bad = await put({ formId: form.id, siteIds: [site], years });
      expect(bad.status).toBe(400);
      expect(bad.body.issues[0].path).toMatch(/^years/);
    }
    expect((await put({ formId: form.id, siteIds: [site], years: [2025], extra: 1 })).status).toBe(400);
    expect(await list(`formId=${form.id}`)).toEqual([]);
  });

  it('lets a manager replace the set on their own sites only, leaving other sites as they are', async () => {
    const mine = await createSite(t, tenant.organizationId);
    const child = await createSite(t, tenant.organizationId, { parentId: mine });
    const notMine = await createSite(t, tenant.organizationId);
    const manager = tenant.manager;
    await assignSites(t, tenant.organizationId, manager.userId, [mine]);
    const form = await createForm(t, tenant);

    expect(
      (await put({ formId: form.id, siteIds: [mine], years: [2025] }, tenant.collector.token)).status,
    ).toBe(403);
    expect((await put({ formId: form.id, siteIds: [notMine], years: [2025] }, manager.token)).status).toBe(
      403,
    );
    expect(
      (await put({ formId: form.id, siteIds: [mine, child], years: [2025] }, manager.token)).status,
    ).toBe(200);
    // A site the manager does not manage stays active when the manager leaves it out (they
    // cannot see it); the manager's own sites become exactly the list.
    await put({ formId: form.id, siteIds: [mine, child, notMine], years: [2025] });
    const own = await put({ formId: form.id, siteIds: [mine], years: [2025] }, manager.token);
    expect(own.status).toBe(200);
    expect(await list(`formId=${form.id}`)).toEqual(pairs([mine, notMine], [2025]));
    // Naming it explicitly to keep it is fine; naming it to add it where it is inactive is a 403.
    expect(
      (await put({ formId: form.id, siteIds: [mine, notMine], years: [2025] }, manager.token)).status,
    ).toBe(200);
    expect((await put({ formId: form.id, siteIds: [notMine], years: [2026] }, manager.token)).status).toBe(
      403,
    );
    expect(await list(`formId=${form.id}`)).toEqual(pairs([mine, notMine], [2025]));
  });
});

describe('form-sites and site deletion', () => {
  it('a site whose form-sites have no submission can be deleted; one with a submission cannot (400)', async () => {
    const bare = await createSite(t, tenant.organizationId);
    const used = await createSite(t, tenant.organizationId);
    const form = await createForm(t, tenant, { periodType: 'YEARLY' });
    await put({ formId: form.id, siteIds: [bare, used], years: [2025] });
    const submitted = await api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId: used,
        year: 2025,
        values: [{ elementKey: 'amount', periodUnit: 1, value: 1 }],
      },
    });
    expect(submitted.status).toBe(200);

    expect((await api(t, 'DELETE', `/sites/${bare}`, { token: tenant.owner.token })).status).toBe(200);
    const refused = await api(t, 'DELETE', `/sites/${used}`, { token: tenant.owner.token });
    expect(refused.status).toBe(400);
    expect(await list(`formId=${form.id}`)).toEqual(pairs([used], [2025]));
  });
});

describe('GET /form-sites', () => {
  it('lists only active triples on readable sites of live forms', async () => {
    const seen = await createSite(t, tenant.organizationId);
    const hidden = await createSite(t, tenant.organizationId);
    const viewer = tenant.viewer;
    await assignSites(t, tenant.organizationId, viewer.userId, [seen]);
    const form = await createForm(t, tenant);
    await put({ formId: form.id, siteIds: [seen, hidden], years: [2025] });
    expect(await list(`formId=${form.id}`, viewer.token)).toEqual(pairs([seen], [2025]));
    await api(t, 'DELETE', `/forms/${form.id}`, { token: tenant.owner.token });
    expect(await list(`siteId=${seen}`, viewer.token)).toEqual([]);
  });

  it('400 for an unknown formId or siteId filter, 401 without a credential', async () => {
    const unknown = await api(t, 'GET', '/form-sites?formId=00000000-0000-4000-8000-000000000000', {
      token: tenant.owner.token,
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues[0].path).toBe('formId');
    const badSite = await api(t, 'GET', '/form-sites?siteId=00000000-0000-4000-8000-000000000000', {
      token: tenant.owner.token,
    });
    expect(badSite.status).toBe(400);
    expect(badSite.body.issues[0].path).toBe('siteId');
    const malformed = await api(t, 'GET', '/form-sites?formId=x', { token: tenant.owner.token });
    expect(malformed.status).toBe(400);
    expect((await api(t, 'GET', '/form-sites')).status).toBe(401);
  });
});
