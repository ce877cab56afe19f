import type { Caller } from '../../domain/caller.ts';
import { isOwner, roleAtLeast } from '../../domain/roles.ts';
import { policy, type SiteScope } from '../access/index.ts';

/** Where a file stands, for deciding who may see it. */
export interface MediaPlace {
  uploadedBy: string | null;
  /** The sites of the values the file is attached to (none: not attached). */
  siteIds: readonly string[];
}

/**
 * Who may see a file (its metadata, a download URL, attaching it to a value, deleting it):
 * - a file attached to values belongs to their sites: readers of any of those sites see it;
 * - a file attached nowhere belongs to its uploader, to owners, and to managers whose sites
 *   cover the whole organization (`wholeOrganization`); a site-limited member sees only their own.
 * A file the caller may not see is answered as one that does not exist.
 */
export const mediaPolicy = {
  canSee(caller: Caller, scope: SiteScope, wholeOrganization: boolean, media: MediaPlace): boolean {
    if (media.siteIds.length > 0) return media.siteIds.some((id) => policy.canReadSite(scope, id));
    return (
      (media.uploadedBy !== null && media.uploadedBy === caller.userId) ||
      isOwner(caller) ||
      (roleAtLeast(caller.role, 'MANAGER') && wholeOrganization)
    );
  },

  /** Whether `canSee` of an unattached file may depend on the caller covering the organization. */
  needsWholeOrganization: (caller: Caller, media: MediaPlace) =>
    media.siteIds.length === 0 &&
    media.uploadedBy !== caller.userId &&
    !isOwner(caller) &&
    roleAtLeast(caller.role, 'MANAGER'),

  /** Deleting a file the caller sees: its uploader, or a manager (or owner). */
  canDelete: (caller: Caller, media: MediaPlace) =>
    media.uploadedBy === caller.userId || roleAtLeast(caller.role, 'MANAGER'),
};
