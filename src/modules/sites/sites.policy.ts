import type { Caller } from '../../domain/caller.ts';
import { roleAtLeast } from '../../domain/roles.ts';
import { policy, type SiteScope } from '../access/index.ts';

/**
 * Who may change the site tree. A site belongs to whoever manages its parent: creating,
 * deleting and moving a site need manage rights on the parent (old and new one for a move);
 * top-level sites are the owners'. Editing a site's own fields needs manage rights on it.
 */
export const sitePolicy = {
  /** MANAGER and above may change sites at all; lower roles are refused outright. */
  mayWriteSites: (caller: Caller) => roleAtLeast(caller.role, 'MANAGER'),

  /** Place a site under `parentId` (null: at the top of the tree, owners only). */
  canPlaceUnder: (caller: Caller, scope: SiteScope, parentId: string | null) =>
    parentId === null ? policy.isOwner(caller) : policy.canManageSite(caller, scope, parentId),

  canEdit: (caller: Caller, scope: SiteScope, siteId: string) => policy.canManageSite(caller, scope, siteId),

  canMove: (caller: Caller, scope: SiteScope, from: string | null, to: string | null) =>
    sitePolicy.canPlaceUnder(caller, scope, from) && sitePolicy.canPlaceUnder(caller, scope, to),

  canDelete: (caller: Caller, scope: SiteScope, site: { id: string; parentId: string | null }) =>
    sitePolicy.canEdit(caller, scope, site.id) && sitePolicy.canPlaceUnder(caller, scope, site.parentId),
};
