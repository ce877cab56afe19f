import type { TestContext } from '../../helpers/app.ts';
import { assignSites, createForm, createSite, type Tenant } from '../../helpers/factories.ts';
import type { SecurityCase } from '../matrix.ts';

const FORM_BODY = {
  name: 'Matrix form',
  periodType: 'MONTHLY',
  elements: [{ key: 'amount', label: 'Amount', type: 'NUMBER' }],
};

/** A site assigned to the tenant's manager, collector and viewer, so 403s come from the role. */
async function sharedSite(t: TestContext, tenant: Tenant) {
  const id = await createSite(t, tenant.organizationId);
  for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
    await assignSites(t, tenant.organizationId, member.userId, [id]);
  }
  return id;
}

export const cases: SecurityCase[] = [
  { method: 'GET', route: '/forms', prepare: async () => ({ url: '/forms' }) },
  {
    method: 'POST',
    route: '/forms',
    prepare: async () => ({ url: '/forms', body: FORM_BODY }),
  },
  {
    method: 'GET',
    route: '/forms/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/forms/${(await createForm(t, tenant)).id}` }),
  },
  {
    method: 'PUT',
    route: '/forms/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/forms/${(await createForm(t, tenant)).id}`, body: FORM_BODY }),
  },
  {
    method: 'DELETE',
    route: '/forms/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/forms/${(await createForm(t, tenant)).id}` }),
  },
  {
    method: 'PUT',
    route: '/form-sites',
    // The form named in the body is another tenant's: 404, as for a path id.
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: '/form-sites',
      body: {
        formId: (await createForm(t, tenant)).id,
        siteIds: [await sharedSite(t, tenant)],
        years: [2025],
      },
    }),
  },
  { method: 'GET', route: '/form-sites', prepare: async () => ({ url: '/form-sites' }) },
];
