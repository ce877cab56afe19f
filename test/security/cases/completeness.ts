import { api, type TestContext } from '../../helpers/app.ts';
import { activateForm, assignSites, createForm, createSite, type Tenant } from '../../helpers/factories.ts';
import type { SecurityCase } from '../matrix.ts';

/** A monthly form active for 2024 on a site assigned to the manager, collector and viewer. */
async function formOnSite(t: TestContext, tenant: Tenant) {
  const siteId = await createSite(t, tenant.organizationId);
  for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
    await assignSites(t, tenant.organizationId, member.userId, [siteId]);
  }
  const form = await createForm(t, tenant);
  await activateForm(t, tenant, form.id, [siteId], [2024]);
  return { formId: form.id, siteId };
}

/** A lock of March 2024 on the tenant's site; answers its id. */
async function storedLock(t: TestContext, tenant: Tenant): Promise<string> {
  const { formId, siteId } = await formOnSite(t, tenant);
  const res = await api(t, 'POST', '/form-locks', {
    token: tenant.owner.token,
    body: { formId, year: 2024, periodUnit: 3, siteIds: [siteId] },
  });
  if (res.status !== 200) throw new Error(`lock not stored: ${JSON.stringify(res.body)}`);
  return res.body[0].id;
}

export const cases: SecurityCase[] = [
  {
    method: 'GET',
    route: '/completeness',
    prepare: async (t, tenant) => {
      const { formId } = await formOnSite(t, tenant);
      return { url: `/completeness?formId=${formId}&year=2024` };
    },
  },
  {
    method: 'POST',
    route: '/completeness/reminders',
    prepare: async (t, tenant) => {
      const { formId, siteId } = await formOnSite(t, tenant);
      return {
        url: '/completeness/reminders',
        body: { formId, year: 2024, periodUnit: 3, siteIds: [siteId] },
      };
    },
  },
  {
    method: 'POST',
    route: '/form-locks',
    prepare: async (t, tenant) => {
      const { formId, siteId } = await formOnSite(t, tenant);
      return { url: '/form-locks', body: { formId, year: 2024, siteIds: [siteId] } };
    },
  },
  {
    method: 'DELETE',
    route: '/form-locks/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/form-locks/${await storedLock(t, tenant)}` }),
  },
  {
    method: 'GET',
    route: '/form-locks',
    prepare: async (t, tenant) => {
      const { formId } = await formOnSite(t, tenant);
      return { url: `/form-locks?formId=${formId}` };
    },
  },
];
