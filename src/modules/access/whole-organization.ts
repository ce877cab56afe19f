import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import type { SiteScope } from './access.policy.ts';
import { accessRepository } from './access.repository.ts';
import { siteScope } from './site-scope.ts';

/**
 * Whether the caller's sites cover the whole organization: owners always, other members when
 * every site of the organization is one of theirs (their assignments include every top-level
 * site). A member with a site missing is "site-limited": what applies to every site
 * (organization-wide configuration, files nobody placed on a site) is not theirs to change.
 */
export async function coversOrganization(tx: Tx, caller: Caller, scope?: SiteScope): Promise<boolean> {
  const own = scope ?? (await siteScope(tx, caller));
  if (own.all) return true;
  return !(await accessRepository.anySiteOutside(tx, caller.organizationId, own.siteIds));
}
