import { describe, expect, it } from 'vitest';
import type { Caller } from '../../domain/caller.ts';
import { dashboardPolicy } from './dashboards.policy.ts';

const caller = (role: Caller['role']): Caller => ({
  userId: 'u',
  organizationId: 'o',
  role,
  isAdmin: false,
  email: 'x@example.com',
  name: 'X',
  image: null,
  credential: { kind: 'token', id: 't' },
});

describe('dashboard policy', () => {
  it('allows listed addresses and addresses of listed domains exactly, whatever the case', () => {
    const allowed = (email: string) =>
      dashboardPolicy.emailAllowed(email, ['boss@partner.org'], ['example.com']);
    expect(allowed('Boss@Partner.ORG')).toBe(true);
    expect(allowed('ada@EXAMPLE.com')).toBe(true);
    expect(allowed('ada@team.example.com')).toBe(false);
    expect(allowed('ada@example.com.evil.org')).toBe(false);
    expect(allowed('ada@notexample.com')).toBe(false);
    expect(allowed('other@partner.org')).toBe(false);
    expect(allowed('example.com')).toBe(false);
  });

  it('lets a member limited to some sites publish only a filter of their sites', () => {
    const limited = { all: false, siteIds: new Set(['a', 'b']) };
    const manager = caller('MANAGER');
    expect(dashboardPolicy.canPublish(manager, limited, ['a'])).toBe(true);
    expect(dashboardPolicy.canPublish(manager, limited, ['a', 'c'])).toBe(false);
    expect(dashboardPolicy.canPublish(manager, limited, [])).toBe(false);
    expect(dashboardPolicy.canPublish(manager, limited, undefined)).toBe(false);
    expect(dashboardPolicy.canPublish(caller('OWNER'), { all: true, siteIds: new Set() }, undefined)).toBe(
      true,
    );
  });
});
