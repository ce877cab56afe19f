import { describe, expect, it } from 'vitest';
import type { Role } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import type { SiteScope } from '../access/access.policy.ts';
import { sitePolicy } from './sites.policy.ts';

const caller = (role: Role): Caller => ({
  userId: 'u',
  organizationId: 'o',
  role,
  isAdmin: false,
  email: 'e@x.org',
  name: 'n',
  image: null,
  credential: { kind: 'token', id: 't' },
});
const managed: SiteScope = { all: false, siteIds: new Set(['region', 'plant']) };
const everything: SiteScope = { all: true, siteIds: new Set() };

describe('site policy', () => {
  it('keeps the top of the tree for owners', () => {
    expect(sitePolicy.canPlaceUnder(caller('OWNER'), everything, null)).toBe(true);
    expect(sitePolicy.canPlaceUnder(caller('MANAGER'), managed, null)).toBe(false);
  });

  it('lets managers place, move and delete below sites they manage', () => {
    const manager = caller('MANAGER');
    expect(sitePolicy.canPlaceUnder(manager, managed, 'region')).toBe(true);
    expect(sitePolicy.canPlaceUnder(manager, managed, 'elsewhere')).toBe(false);
    expect(sitePolicy.canMove(manager, managed, 'region', 'plant')).toBe(true);
    expect(sitePolicy.canMove(manager, managed, 'group', 'plant')).toBe(false);
    expect(sitePolicy.canMove(manager, managed, 'region', null)).toBe(false);
    expect(sitePolicy.canDelete(manager, managed, { id: 'plant', parentId: 'region' })).toBe(true);
    expect(sitePolicy.canDelete(manager, managed, { id: 'region', parentId: 'group' })).toBe(false);
    expect(sitePolicy.canEdit(manager, managed, 'region')).toBe(true);
  });

  it('never lets collectors or viewers change sites, even assigned ones', () => {
    for (const role of ['COLLECTOR', 'VIEWER'] as const) {
      expect(sitePolicy.mayWriteSites(caller(role))).toBe(false);
      expect(sitePolicy.canEdit(caller(role), managed, 'plant')).toBe(false);
      expect(sitePolicy.canPlaceUnder(caller(role), managed, 'plant')).toBe(false);
    }
  });
});
