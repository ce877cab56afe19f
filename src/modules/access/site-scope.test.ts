import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { assignSites, createSite, createTenant } from '../../../test/helpers/factories.ts';
import type { Caller } from '../../domain/caller.ts';
import { siteScope } from './site-scope.ts';

const t = useTestApp();

const asCaller = (organizationId: string, userId: string, role: Caller['role']): Caller => ({
  userId,
  organizationId,
  role,
  isAdmin: false,
  email: 'x@example.com',
  name: 'x',
  image: null,
  credential: { kind: 'token', id: 'x' },
});

describe('site scope', () => {
  it('includes assigned sites and all their descendants, and nothing else', async () => {
    const tenant = await createTenant(t);
    const org = tenant.organizationId;
    const root = await createSite(t, org, { name: 'Group' });
    const europe = await createSite(t, org, { name: 'Europe', parentId: root });
    const paris = await createSite(t, org, { name: 'Paris', parentId: europe });
    const office = await createSite(t, org, { name: 'Paris office', parentId: paris });
    const asia = await createSite(t, org, { name: 'Asia', parentId: root });
    await assignSites(t, org, tenant.collector.userId, [europe]);

    const scope = await t.database.tenant(org, (tx) =>
      siteScope(tx, asCaller(org, tenant.collector.userId, 'COLLECTOR')),
    );
    expect(scope.all).toBe(false);
    expect([...scope.siteIds].sort()).toEqual([europe, paris, office].sort());
    expect(scope.siteIds.has(asia)).toBe(false);
    expect(scope.siteIds.has(root)).toBe(false);
  });

  it('is everything for owners and nothing for members without assignments', async () => {
    const tenant = await createTenant(t);
    const org = tenant.organizationId;
    await createSite(t, org);
    const owner = await t.database.tenant(org, (tx) =>
      siteScope(tx, asCaller(org, tenant.owner.userId, 'OWNER')),
    );
    expect(owner.all).toBe(true);
    const viewer = await t.database.tenant(org, (tx) =>
      siteScope(tx, asCaller(org, tenant.viewer.userId, 'VIEWER')),
    );
    expect(viewer).toEqual({ all: false, siteIds: new Set() });
  });
});
