import type { Caller } from '../../domain/caller.ts';
import { isOwner } from '../../domain/roles.ts';
import type { SiteScope } from '../access/index.ts';

/** Pure rules of dashboards and their public gates. */
export const dashboardPolicy = {
  /**
   * Whether an address may ask for a code: it is on the list, or its domain is listed exactly
   * (case-insensitive; `example.com` does not admit `team.example.com`).
   */
  emailAllowed(email: string, emails: readonly string[], domains: readonly string[]): boolean {
    const address = email.trim().toLowerCase();
    if (emails.some((e) => e.toLowerCase() === address)) return true;
    const at = address.lastIndexOf('@');
    const domain = at < 0 ? '' : address.slice(at + 1);
    return domain !== '' && domains.some((d) => d.toLowerCase() === domain);
  },

  /**
   * A public dashboard shows its filter's sites to anyone: a member limited to some sites may
   * publish one only when its filter names sites, all within theirs (owners: any).
   */
  canPublish(caller: Caller, scope: SiteScope, filterSiteIds: readonly string[] | undefined): boolean {
    if (isOwner(caller) || scope.all) return true;
    return (
      filterSiteIds !== undefined &&
      filterSiteIds.length > 0 &&
      filterSiteIds.every((id) => scope.siteIds.has(id))
    );
  },
};
