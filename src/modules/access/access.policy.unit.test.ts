import { describe, expect, it } from 'vitest';
import type { Role } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { policy, type SiteScope } from './access.policy.ts';

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
const scope = (...ids: string[]): SiteScope => ({ all: false, siteIds: new Set(ids) });
const everything: SiteScope = { all: true, siteIds: new Set() };

describe('access policy', () => {
  it('reads only sites in scope, or all of them', () => {
    expect(policy.canReadSite(scope('a'), 'a')).toBe(true);
    expect(policy.canReadSite(scope('a'), 'b')).toBe(false);
    expect(policy.canReadSite(everything, 'b')).toBe(true);
  });

  it('writes site data from COLLECTOR up, on sites in scope', () => {
    expect(policy.canWriteSiteData(caller('VIEWER'), scope('a'), 'a')).toBe(false);
    expect(policy.canWriteSiteData(caller('COLLECTOR'), scope('a'), 'a')).toBe(true);
    expect(policy.canWriteSiteData(caller('COLLECTOR'), scope('a'), 'b')).toBe(false);
    expect(policy.canWriteSiteData(caller('OWNER'), everything, 'b')).toBe(true);
  });

  it('manages sites from MANAGER up, on sites in scope', () => {
    expect(policy.canManageSite(caller('COLLECTOR'), scope('a'), 'a')).toBe(false);
    expect(policy.canManageSite(caller('MANAGER'), scope('a'), 'a')).toBe(true);
    expect(policy.canManageSite(caller('MANAGER'), scope('a'), 'b')).toBe(false);
  });

  it('configures the organization from MANAGER up', () => {
    expect(policy.canConfigure(caller('COLLECTOR'))).toBe(false);
    expect(policy.canConfigure(caller('MANAGER'))).toBe(true);
    expect(policy.isOwner(caller('MANAGER'))).toBe(false);
    expect(policy.isOwner(caller('OWNER'))).toBe(true);
  });
});
