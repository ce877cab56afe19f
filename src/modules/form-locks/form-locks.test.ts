import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  assignSites,
  createActivityDefinition,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

/**
 * A monthly form (energy NUMBER, trips ACTIVITY) on two sites in 2024, both with January and
 * March data; the manager and collector are assigned to both, a third site is nobody's.
 */
const t = useTestApp();
let tenant: Tenant;
let site: string;
let site2: string;
let unassigned: string;
let definition: string;
let form: Awaited<ReturnType<typeof createForm>>;
let activityOf: Record<string, string>;
let energyValueOf: Record<string, string>;

afterAll(() => shutdownSandbox());

const submit = (siteId: string, values: unknown[], token = tenant.collector.token) =>
  api(t, 'POST', '/form-submissions', { token, body: { formId: form.id, siteId, year: 2024, values } });
const lock = (body: Record<string, unknown>, token = tenant.manager.token) =>
  api(t, 'POST', '/form-locks', { token, body: { formId: form.id, year: 2024, ...body } });
const unlock = (id: string, token = tenant.manager.token) => api(t, 'DELETE', `/form-locks/${id}`, { token });
const storedValues = (siteId: string) =>
  t.database.tenant(tenant.organizationId, (tx) =>
    tx
      .selectFrom('form_element_submissions as v')
      .innerJoin('form_submissions as sub', 'sub.id', 'v.form_submission_id')
      .innerJoin('form_sites as fs', 'fs.id', 'sub.form_site_id')
      .select(['v.period_unit', 'v.value', 'v.status', 'v.deleted_at'])
      .where('fs.site_id', '=', siteId)
      .orderBy('v.element_id')
      .orderBy('v.period_unit')
      .execute(),
  );
const storedActivities = () =>
  t.database.tenant(tenant.organizationId, (tx) =>
    tx.selectFrom('activities').select(['id', 'value', 'input']).orderBy('id').execute(),
  );

beforeAll(async () => {
  tenant = await createTenant(t);
  const org = tenant.organizationId;
  site = await createSite(t, org, { name: 'Plant A' });
  site2 = await createSite(t, org, { name: 'Plant B' });
  unassigned = await createSite(t, org, { name: 'Plant C' });
  for (const m of [tenant.manager, tenant.collector]) await assignSites(t, org, m.userId, [site, site2]);
  definition = await createActivityDefinition(t, org, { key: 'trips' });
  form = await createForm(t, tenant, {
    elements: [
      { key: 'energy', label: 'Energy', type: 'NUMBER' },
      { key: 'trips', label: 'Trips', type: 'ACTIVITY', activityDefinitionId: definition },
    ],
  });
  await activateForm(t, tenant, form.id, [site, site2, unassigned], [2024]);
  activityOf = {};
  energyValueOf = {};
  for (const s of [site, site2]) {
    const res = await submit(s, [
      { elementKey: 'energy', periodUnit: 1, value: 10 },
      { elementKey: 'energy', periodUnit: 3, value: 30 },
      { elementKey: 'trips', periodUnit: 3, value: [{ amount: 1 }] },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    activityOf[s] = res.body.values[2].activities[0].activityId;
    energyValueOf[s] = res.body.values[1].formElementSubmissionId;
  }
});

describe('POST /form-locks, DELETE /form-locks/{id}, GET /form-locks', () => {
  it('a manager locks periods of their sites; locking again keeps the lock', async () => {
    const first = await lock({ periodUnit: 2, siteIds: [site] });
    const again = await lock({ periodUnit: 2, siteIds: [site] });

    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual([
      expect.objectContaining({
        formId: form.id,
        year: 2024,
        periodUnit: 2,
        siteId: site,
        siteName: 'Plant A',
        createdBy: tenant.manager.userId,
        unlockedAt: null,
      }),
    ]);
    expect(again.body.map((l: any) => l.id)).toEqual([first.body[0].id]);
    await unlock(first.body[0].id);
  });

  it('only owners lock the whole organization; managers only their sites; periods of the form only', async () => {
    expect((await lock({})).status).toBe(403);
    expect((await lock({ siteIds: [unassigned] })).status).toBe(403);
    expect((await lock({ siteIds: [site] }, tenant.collector.token)).status).toBe(403);
    expect((await lock({ periodUnit: 13, siteIds: [site] })).status).toBe(400);
    expect((await lock({ formId: site, siteIds: [site] })).status).toBe(400);
  });

  it('unlocking is recorded with who and when; an unlocked lock is gone (404)', async () => {
    const [made] = (await lock({ periodUnit: 5, siteIds: [site] })).body;
    const lifted = await unlock(made.id);
    const again = await unlock(made.id);
    const live = await api(t, 'GET', `/form-locks?formId=${form.id}`, { token: tenant.viewer.token });
    const all = await api(t, 'GET', `/form-locks?formId=${form.id}&includeUnlocked=true`, {
      token: tenant.owner.token,
    });

    expect(lifted.status).toBe(200);
    expect(lifted.body).toMatchObject({
      id: made.id,
      unlockedBy: tenant.manager.userId,
      unlockedAt: expect.any(String),
    });
    expect(again.status).toBe(404);
    expect(live.body.map((l: any) => l.id)).not.toContain(made.id);
    expect(all.body.find((l: any) => l.id === made.id)).toMatchObject({ unlockedBy: tenant.manager.userId });
  });

  it('an organization-wide lock is unlocked by owners only', async () => {
    const [made] = (await lock({ periodUnit: 6 }, tenant.owner.token)).body;

    expect(made).toMatchObject({ siteId: null, siteName: null, periodUnit: 6 });
    expect((await unlock(made.id)).status).toBe(403);
    expect((await unlock(made.id, tenant.owner.token)).status).toBe(200);
  });
});

describe('while a period is locked', () => {
  it('submissions naming it are refused naming the period, site and lock; nothing changes', async () => {
    const [made] = (await lock({ periodUnit: 3, siteIds: [site] })).body;
    const before = await storedValues(site);

    const changed = await submit(site, [
      { elementKey: 'energy', periodUnit: 1, value: 11 },
      { elementKey: 'energy', periodUnit: 3, value: 31 },
    ]);
    const deleted = await submit(site, [{ elementKey: 'energy', periodUnit: 3, value: null }]);
    const unchanged = await submit(site, [{ elementKey: 'energy', periodUnit: 3, value: 30 }]);
    const otherSite = await submit(site2, [{ elementKey: 'energy', periodUnit: 3, value: 32 }]);

    expect(changed.status).toBe(400);
    expect(changed.body.issues).toMatchObject([
      {
        path: 'values.1',
        message: 'Energy for March 2024 is locked: closed for reporting',
      },
    ]);
    expect(deleted.status).toBe(400);
    // The values pipeline guards every period a submission names, changed or not.
    expect(unchanged.status).toBe(400);
    expect(otherSite.status).toBe(200);
    expect(await storedValues(site)).toEqual(before);
    await unlock(made.id);
  });

  it('a whole-year lock covers every period: activity changes and markers are refused, reviews allowed', async () => {
    const [made] = (await lock({ siteIds: [site] })).body;
    const before = await storedActivities();

    const patched = await api(t, 'PATCH', `/activities/${activityOf[site]}`, {
      token: tenant.collector.token,
      body: { input: { amount: 5 } },
    });
    const marked = await api(t, 'POST', '/activities/no-activity/mark', {
      token: tenant.collector.token,
      body: { formId: form.id, key: 'trips', siteId: site, year: 2024, periodUnit: 7 },
    });
    const reviewed = await api(t, 'POST', `/form-submissions/values/${energyValueOf[site]}/review`, {
      token: tenant.manager.token,
      body: { status: 'APPROVED' },
    });

    expect(patched.status).toBe(400);
    expect(patched.body.issues[0].message).toContain(`lock ${made.id} (all of 2024, Plant A`);
    expect(marked.status).toBe(400);
    expect(marked.body.issues).toMatchObject([{ message: expect.stringContaining(made.id) }]);
    expect(reviewed.status).toBe(200);
    expect(await storedActivities()).toEqual(before);
    await unlock(made.id);
    const afterUnlock = await api(t, 'PATCH', `/activities/${activityOf[site]}`, {
      token: tenant.collector.token,
      body: { input: { amount: 2 } },
    });
    expect(afterUnlock.status).toBe(200);
  });

  it('recalculating a definition skips locked activities and says how many', async () => {
    const [made] = (await lock({ periodUnit: 3 }, tenant.owner.token)).body;
    const [site2Lock] = (await lock({ siteIds: [site2] })).body;
    await unlock(made.id, tenant.owner.token);
    await t.database.system((tx) =>
      tx
        .updateTable('activity_definitions')
        .set({ calc_code: 'return inputs.amount * 100' })
        .where('id', '=', definition)
        .execute(),
    );

    const res = await api(t, 'POST', `/activity-definitions/${definition}/recalculate`, {
      token: tenant.manager.token,
    });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ recalculated: 1, changed: 1, skipped: 1 });
    const values = Object.fromEntries((await storedActivities()).map((a) => [a.id, a.value]));
    expect(values[activityOf[site2]!]).toBe(2); // locked: amount 1 × 2, as calculated before
    expect(values[activityOf[site]!]).toBe(200); // amount 2 × 100
    await unlock(site2Lock.id);
  });

  it('a form cannot leave a (site, year) that a lock of one of its periods covers', async () => {
    const [march] = (await lock({ periodUnit: 3, siteIds: [site2] })).body;
    const setSites = (siteIds: string[]) =>
      api(t, 'PUT', '/form-sites', {
        token: tenant.owner.token,
        body: { formId: form.id, siteIds, years: [2024] },
      });

    const refused = await setSites([site, unassigned]);

    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.issues).toHaveLength(1);
    expect(refused.body.issues[0].path).toBe('years.0');
    expect(refused.body.issues[0].message).toContain(`cannot be deactivated at Plant B in 2024`);
    expect(refused.body.issues[0].message).toContain(`lock ${march.id} (period 3 of 2024, Plant B, by `);
    await unlock(march.id);
    const allowed = await setSites([site, unassigned]);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect((await setSites([site, site2, unassigned])).status).toBe(200);
  });
});
