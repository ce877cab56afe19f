import type { Caller } from '../../domain/caller.ts';
import { isOwner, roleAtLeast } from '../../domain/roles.ts';

/**
 * The sites a caller may act on. OWNER: every site of the organization. Other roles: the
 * sites assigned to them and all descendants of those sites.
 */
export interface SiteScope {
  all: boolean;
  siteIds: ReadonlySet<string>;
}

/** Pure permission rules; every route decides with these and `authorize()`. */
export const policy = {
  canReadSite: (scope: SiteScope, siteId: string) => scope.all || scope.siteIds.has(siteId),

  /** Enter form data and activities on a site: COLLECTOR or above, on an assigned site. */
  canWriteSiteData: (caller: Caller, scope: SiteScope, siteId: string) =>
    roleAtLeast(caller.role, 'COLLECTOR') && policy.canReadSite(scope, siteId),

  /** Change a site, its sub-sites and its people: MANAGER or above, on an assigned site. */
  canManageSite: (caller: Caller, scope: SiteScope, siteId: string) =>
    roleAtLeast(caller.role, 'MANAGER') && policy.canReadSite(scope, siteId),

  /** Organization-wide configuration (forms, definitions, indicators, dashboards): MANAGER+. */
  canConfigure: (caller: Caller) => roleAtLeast(caller.role, 'MANAGER'),

  isOwner,
};
