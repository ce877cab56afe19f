import { randomBytes } from 'node:crypto';
import type { TestContext } from '../../helpers/app.ts';
import { addMember, assignSites, createSite, type Tenant } from '../../helpers/factories.ts';
import type { SecurityCase } from '../matrix.ts';

/** A site assigned to the tenant's manager, collector and viewer, so 403s come from the role. */
async function sharedSite(t: TestContext, tenant: Tenant) {
  const id = await createSite(t, tenant.organizationId);
  for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
    await assignSites(t, tenant.organizationId, member.userId, [id]);
  }
  return id;
}

/** A fresh collector on a shared site: a member every manager of that site may change or remove. */
async function collectorOnSharedSite(t: TestContext, tenant: Tenant) {
  const member = await addMember(t, tenant.organizationId, 'COLLECTOR');
  await assignSites(t, tenant.organizationId, member.userId, [await sharedSite(t, tenant)]);
  return member.userId;
}

export const cases: SecurityCase[] = [
  {
    method: 'GET',
    route: '/organizations/current',
    prepare: async () => ({ url: '/organizations/current' }),
  },
  {
    method: 'PATCH',
    route: '/organizations/current',
    prepare: async () => ({
      url: '/organizations/current',
      body: { defaultStatuses: ['COMPLETED', 'APPROVED'] },
    }),
  },
  {
    method: 'GET',
    route: '/organizations/current/members',
    prepare: async () => ({ url: '/organizations/current/members' }),
  },
  {
    method: 'PATCH',
    route: '/organizations/current/members/:userId',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/organizations/current/members/${await collectorOnSharedSite(t, tenant)}`,
      body: { role: 'VIEWER' },
    }),
  },
  {
    method: 'DELETE',
    route: '/organizations/current/members/:userId',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/organizations/current/members/${await collectorOnSharedSite(t, tenant)}`,
    }),
  },
  {
    method: 'POST',
    route: '/organizations/current/invitations',
    prepare: async (t, tenant) => ({
      url: '/organizations/current/invitations',
      body: {
        email: `matrix-${randomBytes(5).toString('hex')}@example.com`,
        assignedSiteIds: [await sharedSite(t, tenant)],
        role: 'Collector',
      },
    }),
  },
  {
    method: 'POST',
    route: '/invitations/accept',
    prepare: async () => ({
      url: '/invitations/accept',
      body: { token: 'sdcs_inv_unknown', name: 'Nobody', password: 'long enough password' },
    }),
  },
  {
    method: 'POST',
    route: '/invitations/describe',
    prepare: async () => ({ url: '/invitations/describe', body: { token: 'sdcs_inv_unknown' } }),
  },
];
