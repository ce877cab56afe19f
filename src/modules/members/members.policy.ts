import type { Role } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { ROLES, roleAtLeast } from '../../domain/roles.ts';
import type { SiteScope } from '../access/index.ts';

/** A role name in any letter case (`Collector`, `COLLECTOR`) as stored, upper case; null if unknown. */
export function parseRole(value: string): Role | null {
  const upper = value.trim().toUpperCase();
  return (ROLES as readonly string[]).includes(upper) ? (upper as Role) : null;
}

/**
 * Who may manage whom. Owners manage everyone and grant every role. Managers grant every role
 * but OWNER (only owners make owners), change and remove collectors and viewers only (not their
 * peers), and only on sites within their scope.
 */
export const memberPolicy = {
  /** List, invite, change and remove members at all: MANAGER or above. */
  canManagePeople: (caller: Caller) => roleAtLeast(caller.role, 'MANAGER'),

  /** Change or remove a member who has `role`. */
  canManageMember: (caller: Caller, role: Role) =>
    caller.role === 'OWNER' || (caller.role === 'MANAGER' && !roleAtLeast(role, 'MANAGER')),

  /** Give `role` to someone, by invitation or by a change of role. */
  canGrantRole: (caller: Caller, role: Role) =>
    caller.role === 'OWNER' || (caller.role === 'MANAGER' && role !== 'OWNER'),

  /**
   * Manage (change, remove, re-invite) a member who has the sites `memberSites` (decision 168).
   * `whole`: the caller's sites cover the whole organization (owners; managers of every site):
   * any member. A manager limited to some sites: only a member who has sites, all within the
   * caller's; a member of no site (who is not limited to any, or not yet placed) is left to
   * owners and managers of every site. An empty list must not pass as "all within".
   */
  canManageMemberSites: (scope: SiteScope, whole: boolean, memberSites: readonly string[]) =>
    whole || (memberSites.length > 0 && memberPolicy.canAssignSites(scope, memberSites)),

  /** Assign (or take away) these sites: each must be within the caller's scope. */
  canAssignSites: (scope: SiteScope, siteIds: Iterable<string>) => {
    if (scope.all) return true;
    for (const id of siteIds) if (!scope.siteIds.has(id)) return false;
    return true;
  },
};
