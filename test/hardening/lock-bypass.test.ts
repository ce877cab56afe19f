import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../helpers/app.ts';
import { activateForm, createForm, createSite, createTenant, type Tenant } from '../helpers/factories.ts';

/**
 * Issue 25, item 3: a lock cannot be bypassed. With (form, 2024) locked, deactivating the form on
 * a locked (site, 2024) is refused naming the lock (400, as a locked write is), and so is changing
 * the aggregation of an element with locked values; unlocked years and sites stay changeable.
 */
const t = useTestApp();
let tenant: Tenant;
let plant: string;
let depot: string;
let form: Awaited<ReturnType<typeof createForm>>;
let yearLock: string;

const formSites = (body: Record<string, unknown>, token = tenant.owner.token) =>
  api(t, 'PUT', '/form-sites', { token, body: { formId: form.id, ...body } });
const active = async () =>
  (await api(t, 'GET', `/form-sites?formId=${form.id}`, { token: tenant.owner.token })).body.items ??
  (await api(t, 'GET', `/form-sites?formId=${form.id}`, { token: tenant.owner.token })).body;
const withAggregation = (aggregation: string) =>
  api(t, 'PUT', `/forms/${form.id}`, {
    token: tenant.owner.token,
    body: {
      name: 'Energy',
      periodType: 'MONTHLY',
      elements: [{ id: form.elements[0]!.id, key: 'energy', label: 'Energy', type: 'NUMBER', aggregation }],
    },
  });

beforeAll(async () => {
  tenant = await createTenant(t);
  plant = await createSite(t, tenant.organizationId, { name: 'Plant' });
  depot = await createSite(t, tenant.organizationId, { name: 'Depot' });
  form = await createForm(t, tenant, {
    name: 'Energy',
    elements: [{ key: 'energy', label: 'Energy', type: 'NUMBER', aggregation: 'SUM' }],
  });
  await activateForm(t, tenant, form.id, [plant, depot], [2023, 2024]);
  // January 10 + February 20 = 30 at the plant in 2024.
  const submitted = await api(t, 'POST', '/form-submissions', {
    token: tenant.owner.token,
    body: {
      formId: form.id,
      siteId: plant,
      year: 2024,
      values: [
        { elementKey: 'energy', periodUnit: 1, value: 10 },
        { elementKey: 'energy', periodUnit: 2, value: 20 },
      ],
    },
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
  const lock = await api(t, 'POST', '/form-locks', {
    token: tenant.owner.token,
    body: { formId: form.id, year: 2024, siteIds: [plant] },
  });
  expect(lock.status, JSON.stringify(lock.body)).toBe(200);
  yearLock = lock.body[0].id;
});

describe('a lock and the form-sites it covers', () => {
  it('refuses deactivating a locked (site, year), naming the lock; nothing changes', async () => {
    const res = await formSites({ siteIds: [], years: [2024] });

    expect(res.status).toBe(400);
    expect(res.body.issues).toHaveLength(1);
    expect(res.body.issues[0].path).toBe('years.0');
    expect(res.body.issues[0].message).toContain(yearLock);
    expect(res.body.issues[0].message).toContain('Plant');
    const pairs = (await active()).map((r: { siteId: string; year: number }) => `${r.siteId}|${r.year}`);
    expect(pairs).toEqual(expect.arrayContaining([`${plant}|2024`, `${depot}|2024`]));
  });

  it('still deactivates what no lock covers: the depot in 2024, the plant in 2023', async () => {
    expect((await formSites({ siteIds: [plant], years: [2024] })).status).toBe(200);
    expect((await formSites({ siteIds: [depot], years: [2023] })).status).toBe(200);
    const pairs = (await active()).map((r: { siteId: string; year: number }) => `${r.siteId}|${r.year}`);
    expect(pairs.sort()).toEqual([`${depot}|2023`, `${plant}|2024`].sort());
  });

  it('a lock of one period covers its year too: deactivating the site would hide that period', async () => {
    const monthLock = await api(t, 'POST', '/form-locks', {
      token: tenant.owner.token,
      body: { formId: form.id, year: 2023, periodUnit: 3 },
    });
    expect(monthLock.status).toBe(200);
    const res = await formSites({ siteIds: [], years: [2023] });
    expect(res.status).toBe(400);
    expect(res.body.issues[0].message).toContain(monthLock.body[0].id);
  });
});

describe('a lock and the aggregation of its elements', () => {
  it('refuses changing the aggregation of an element with locked values, naming the lock', async () => {
    const res = await withAggregation('AVERAGE');

    expect(res.status).toBe(400);
    expect(res.body.issues[0]).toMatchObject({ path: 'elements.0.aggregation' });
    expect(res.body.issues[0].message).toContain(yearLock);
    const stored = await api(t, 'GET', `/forms/${form.id}`, { token: tenant.owner.token });
    expect(stored.body.elements[0].aggregation).toBe('SUM');
  });

  it('allows it once the lock is lifted', async () => {
    expect((await api(t, 'DELETE', `/form-locks/${yearLock}`, { token: tenant.owner.token })).status).toBe(
      200,
    );
    const res = await withAggregation('AVERAGE');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.elements[0].aggregation).toBe('AVERAGE');
  });
});
