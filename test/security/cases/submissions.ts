import { api, type TestContext } from '../../helpers/app.ts';
import { activateForm, assignSites, createForm, createSite, type Tenant } from '../../helpers/factories.ts';
import type { SecurityCase } from '../matrix.ts';

/**
 * A form active for 2025 on a site assigned to the tenant's manager, collector and viewer
 * (so 403s come from the role), and the body of a valid submission.
 */
async function prepareSubmission(t: TestContext, tenant: Tenant) {
  const siteId = await createSite(t, tenant.organizationId);
  for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
    await assignSites(t, tenant.organizationId, member.userId, [siteId]);
  }
  const form = await createForm(t, tenant);
  await activateForm(t, tenant, form.id, [siteId], [2025]);
  return { formId: form.id, siteId, year: 2025, values: [{ elementKey: 'amount', periodUnit: 1, value: 1 }] };
}

/** A stored submission of the tenant; answers its id and the id of its value. */
async function storedSubmission(t: TestContext, tenant: Tenant) {
  const body = await prepareSubmission(t, tenant);
  const res = await api(t, 'POST', '/form-submissions', { token: tenant.owner.token, body });
  if (res.status !== 200) throw new Error(`submission not stored: ${JSON.stringify(res.body)}`);
  return { id: res.body.id as string, valueId: res.body.values[0].formElementSubmissionId as string };
}

export const cases: SecurityCase[] = [
  {
    method: 'POST',
    route: '/form-submissions',
    prepare: async (t, tenant) => ({ url: '/form-submissions', body: await prepareSubmission(t, tenant) }),
  },
  {
    method: 'GET',
    route: '/form-submissions',
    prepare: async () => ({ url: '/form-submissions' }),
  },
  {
    method: 'POST',
    route: '/form-submissions/check',
    prepare: async (t, tenant) => ({
      url: '/form-submissions/check',
      body: await prepareSubmission(t, tenant),
    }),
  },
  {
    method: 'GET',
    route: '/form-submissions/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/form-submissions/${(await storedSubmission(t, tenant)).id}` }),
  },
  {
    method: 'POST',
    route: '/form-submissions/values/:id/review',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/form-submissions/values/${(await storedSubmission(t, tenant)).valueId}/review`,
      body: { status: 'APPROVED' },
    }),
  },
  {
    method: 'GET',
    route: '/form-submissions/values/:id/history',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/form-submissions/values/${(await storedSubmission(t, tenant)).valueId}/history`,
    }),
  },
  {
    method: 'GET',
    route: '/form-submissions/values',
    prepare: async () => ({ url: '/form-submissions/values?status=COMPLETED' }),
  },
  {
    // Another tenant's ids are in the body: their 404 is in submissions.queue.test.ts.
    method: 'POST',
    route: '/form-submissions/values/review',
    prepare: async (t, tenant) => ({
      url: '/form-submissions/values/review',
      body: { ids: [(await storedSubmission(t, tenant)).valueId], status: 'APPROVED' },
    }),
  },
];
