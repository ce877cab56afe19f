import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import type { SiteScope } from './access.policy.ts';
import { accessRepository } from './access.repository.ts';

const cache = new WeakMap<Caller, Promise<SiteScope>>();

/**
 * The caller's site scope, computed with one recursive query (assigned sites and all their
 * descendants) and remembered for the rest of the request.
 */
export function siteScope(tx: Tx, caller: Caller): Promise<SiteScope> {
  let scope = cache.get(caller);
  if (!scope) {
    scope = loadSiteScope(tx, caller);
    cache.set(caller, scope);
    scope.catch(() => cache.delete(caller));
  }
  return scope;
}

async function loadSiteScope(tx: Tx, caller: Caller): Promise<SiteScope> {
  if (caller.role === 'OWNER') return { all: true, siteIds: new Set() };
  const siteIds = await accessRepository.assignedSubtrees(tx, caller.organizationId, caller.userId);
  return { all: false, siteIds: new Set(siteIds) };
}

/** Forgets a cached scope (after the caller's own assignments change within a request). */
export function forgetSiteScope(caller: Caller): void {
  cache.delete(caller);
}
