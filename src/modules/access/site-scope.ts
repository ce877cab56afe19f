import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import type { SiteScope } from './access.policy.ts';

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
  const rows = await sql<{ id: string }>`
    with recursive scope(id) as (
      select site_id from membership_sites
       where organization_id = ${caller.organizationId} and user_id = ${caller.userId}
      union
      select s.id from sites s join scope on s.parent_id = scope.id
       where s.organization_id = ${caller.organizationId}
    )
    select id from scope`.execute(tx);
  return { all: false, siteIds: new Set(rows.rows.map((r) => r.id)) };
}

/** Forgets a cached scope (after the caller's own assignments change within a request). */
export function forgetSiteScope(caller: Caller): void {
  cache.delete(caller);
}

/**
 * A WHERE condition limiting `column` (a site id column) to the scope, for list queries:
 * `.where((eb) => inSiteScope(eb, 's.id', scope))`.
 */
export function inSiteScope<DB, TB extends keyof DB>(
  _eb: ExpressionBuilder<DB, TB>,
  column: string,
  scope: SiteScope,
): Expression<SqlBool> {
  if (scope.all) return sql<SqlBool>`true`;
  if (scope.siteIds.size === 0) return sql<SqlBool>`false`;
  return sql<SqlBool>`${sql.ref(column)} = any(${[...scope.siteIds]}::uuid[])`;
}
