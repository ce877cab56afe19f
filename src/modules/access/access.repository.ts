import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { SiteScope } from './access.policy.ts';

/** What site scopes are made of: a member's assigned sites and their subtrees. */
export const accessRepository = {
  /** The sites assigned to the user and all their descendants; one recursive query. */
  async assignedSubtrees(tx: Tx, organizationId: string, userId: string): Promise<string[]> {
    const rows = await sql<{ id: string }>`
      with recursive scope(id) as (
        select site_id from membership_sites
         where organization_id = ${organizationId} and user_id = ${userId}
        union
        select s.id from sites s join scope on s.parent_id = scope.id
         where s.organization_id = ${organizationId}
      )
      select id from scope`.execute(tx);
    return rows.rows.map((r) => r.id);
  },

  /** Whether the organization has a site that is not one of `siteIds`. */
  async anySiteOutside(tx: Tx, organizationId: string, siteIds: Iterable<string>): Promise<boolean> {
    const rows = await sql<{ id: string }>`
      select id from sites
       where organization_id = ${organizationId} and not (id = any(${[...siteIds]}::uuid[]))
       limit 1`.execute(tx);
    return rows.rows.length > 0;
  },
};

/**
 * A WHERE condition limiting `column` (a site id column) to the scope, for the list queries of
 * repositories: `.where((eb) => inSiteScope(eb, 's.id', scope))`.
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
