import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { api, type TestContext } from '../../helpers/app.ts';
import { addMember, assignSites, createSite, type Tenant } from '../../helpers/factories.ts';
import type { SecurityCase, SiteCase } from '../matrix.ts';
import type { Plants } from '../plants.ts';

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

/** A fresh collector of `sites` (none: a member of no site). */
async function collectorOf(t: TestContext, plants: Plants, sites: string[]) {
  const member = await addMember(t, plants.tenant.organizationId, 'COLLECTOR');
  if (sites.length > 0) await assignSites(t, plants.tenant.organizationId, member.userId, sites);
  return member.userId;
}

/** The member's role as the owner lists it (undefined once removed). */
async function roleOf(t: TestContext, plants: Plants, userId: string) {
  const res = await api(t, 'GET', '/organizations/current/members', { token: plants.tenant.owner.token });
  return res.body.find((m: { userId: string }) => m.userId === userId)?.role as string | undefined;
}

/**
 * Members (decision 168): a manager limited to Plant 1 manages members who have sites, all of them
 * within Plant 1; a member of no site, or of Plant 2, is the owner's (or a manager of every site's).
 */
const MEMBER_PLACES: { place: string; sites: (p: Plants) => string[]; manager: number }[] = [
  { place: 'a member of no site', sites: () => [], manager: 403 },
  { place: 'a member of the other plant', sites: (p) => [p.plant2], manager: 403 },
  { place: 'a member of the own plant', sites: (p) => [p.plant1], manager: 200 },
];

export const siteCases: SiteCase[] = MEMBER_PLACES.flatMap(({ place, sites, manager }): SiteCase[] => [
  {
    method: 'PATCH',
    route: '/organizations/current/members/:userId',
    place: `${place}, promoted to MANAGER`,
    expect: { MANAGER: manager, OWNER: 200 },
    prepare: async (t, plants) => {
      const userId = await collectorOf(t, plants, sites(plants));
      return {
        url: `/organizations/current/members/${userId}`,
        body: { role: 'MANAGER' },
        after: async (res) =>
          expect(await roleOf(t, plants, userId)).toBe(res.status === 200 ? 'MANAGER' : 'COLLECTOR'),
      };
    },
  },
  {
    method: 'DELETE',
    route: '/organizations/current/members/:userId',
    place,
    expect: { MANAGER: manager, OWNER: 200 },
    prepare: async (t, plants) => {
      const userId = await collectorOf(t, plants, sites(plants));
      return {
        url: `/organizations/current/members/${userId}`,
        after: async (res) =>
          expect(await roleOf(t, plants, userId)).toBe(res.status === 200 ? undefined : 'COLLECTOR'),
      };
    },
  },
  {
    method: 'POST',
    route: '/organizations/current/invitations',
    place: `an invitation as ${place}`,
    expect: { MANAGER: manager, OWNER: 200 },
    prepare: async (_t, plants) => ({
      url: '/organizations/current/invitations',
      body: {
        email: `matrix-${randomBytes(5).toString('hex')}@example.com`,
        assignedSiteIds: sites(plants),
        role: 'Manager',
      },
    }),
  },
]);
