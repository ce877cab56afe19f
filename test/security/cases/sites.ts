import type { TestContext } from '../../helpers/app.ts';
import { assignSites, createSite, type Tenant } from '../../helpers/factories.ts';
import type { SecurityCase } from '../matrix.ts';

/** A site assigned to the tenant's manager, collector and viewer, so 403s come from the role. */
async function sharedSite(t: TestContext, tenant: Tenant, fields: { parentId?: string; code?: string } = {}) {
  const id = await createSite(t, tenant.organizationId, fields);
  for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
    await assignSites(t, tenant.organizationId, member.userId, [id]);
  }
  return id;
}

export const cases: SecurityCase[] = [
  { method: 'GET', route: '/sites', prepare: async () => ({ url: '/sites' }) },
  {
    method: 'POST',
    route: '/sites',
    prepare: async (t, tenant) => ({
      url: '/sites',
      body: { name: 'Matrix child', parentId: await sharedSite(t, tenant) },
    }),
  },
  {
    method: 'GET',
    route: '/sites/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/sites/${await sharedSite(t, tenant)}` }),
  },
  {
    method: 'PATCH',
    route: '/sites/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/sites/${await sharedSite(t, tenant)}`,
      body: { name: 'Renamed' },
    }),
  },
  {
    method: 'DELETE',
    route: '/sites/:id',
    tenantRecord: true,
    // A site belongs to whoever manages its parent: delete a child of the shared site.
    prepare: async (t, tenant) => {
      const parentId = await sharedSite(t, tenant);
      return { url: `/sites/${await createSite(t, tenant.organizationId, { parentId })}` };
    },
  },
  {
    method: 'POST',
    route: '/sites/import',
    prepare: async (t, tenant) => {
      const parentId = await sharedSite(t, tenant);
      return {
        url: '/sites/import',
        body: { organizationId: tenant.organizationId, csvContent: `name,parent\nImported,${parentId}\n` },
      };
    },
  },
];
