import { describe, expect, it } from 'vitest';
import type { Role } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { memberPolicy, parseRole } from './members.policy.ts';

const caller = (role: Role): Caller => ({
  userId: 'u',
  organizationId: 'o',
  role,
  isAdmin: false,
  email: 'u@example.com',
  name: 'U',
  image: null,
  credential: { kind: 'token', id: 't' },
});

describe('parseRole', () => {
  it('accepts the four roles in any letter case and stores them upper-case', () => {
    expect(parseRole('Collector')).toBe('COLLECTOR');
    expect(parseRole('COLLECTOR')).toBe('COLLECTOR');
    expect(parseRole(' owner ')).toBe('OWNER');
    expect(parseRole('vIeWeR')).toBe('VIEWER');
    expect(parseRole('Manager')).toBe('MANAGER');
  });

  it('refuses anything else', () => {
    for (const value of ['', 'admin', 'collectors', 'OWNER,VIEWER', 'toString'])
      expect(parseRole(value)).toBeNull();
  });
});

describe('memberPolicy', () => {
  it('lets managers and owners manage people, not collectors or viewers', () => {
    expect(memberPolicy.canManagePeople(caller('OWNER'))).toBe(true);
    expect(memberPolicy.canManagePeople(caller('MANAGER'))).toBe(true);
    expect(memberPolicy.canManagePeople(caller('COLLECTOR'))).toBe(false);
    expect(memberPolicy.canManagePeople(caller('VIEWER'))).toBe(false);
  });

  it('lets owners grant and change every role; managers grant all but OWNER and change those below MANAGER', () => {
    const roles: Role[] = ['OWNER', 'MANAGER', 'COLLECTOR', 'VIEWER'];
    for (const role of roles) {
      expect(memberPolicy.canGrantRole(caller('OWNER'), role)).toBe(true);
      expect(memberPolicy.canManageMember(caller('OWNER'), role)).toBe(true);
      const below = role === 'COLLECTOR' || role === 'VIEWER';
      expect(memberPolicy.canGrantRole(caller('MANAGER'), role)).toBe(role !== 'OWNER');
      expect(memberPolicy.canManageMember(caller('MANAGER'), role)).toBe(below);
      expect(memberPolicy.canManageMember(caller('COLLECTOR'), role)).toBe(false);
      expect(memberPolicy.canGrantRole(caller('VIEWER'), role)).toBe(false);
    }
  });

  it('allows assigning only sites within the scope', () => {
    const scope = { all: false, siteIds: new Set(['a', 'b']) };
    expect(memberPolicy.canAssignSites(scope, ['a', 'b'])).toBe(true);
    expect(memberPolicy.canAssignSites(scope, [])).toBe(true);
    expect(memberPolicy.canAssignSites(scope, ['a', 'c'])).toBe(false);
    expect(memberPolicy.canAssignSites({ all: true, siteIds: new Set() }, ['c'])).toBe(true);
  });
});
