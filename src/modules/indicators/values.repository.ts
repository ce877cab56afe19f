import { type RawBuilder, sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { ValueStatus } from '../../db/schema/index.ts';

/** Where values are counted: sites (null = every site), years, period units, statuses. */
export interface Scope {
  siteIds: string[] | null;
  fromYear: number;
  toYear: number;
  periodUnits: number[] | null;
  statuses: ValueStatus[];
}

/** One operand aggregated over the scope: each way of combining periods, and what is behind it. */
export interface Aggregate {
  element_id: string;
  /** Sum over sites of each site's sum over periods. */
  sum: number;
  /** Sum over sites of each site's latest period in scope. */
  last_sum: number | null;
  /** Sum over sites of each site's mean over the periods with data. */
  average_sum: number;
  value_count: number;
  site_count: number;
}

const periodFilter = (column: RawBuilder<unknown>, scope: Scope) =>
  scope.periodUnits ? sql`and ${column} = any(${scope.periodUnits}::int[])` : sql``;
const siteFilter = (column: RawBuilder<unknown>, scope: Scope) =>
  scope.siteIds ? sql`and ${column} = any(${scope.siteIds}::uuid[])` : sql``;

/** Aggregates over the scope, computed in SQL over the numeric columns. */
export const valuesRepository = {
  /**
   * Every requested NUMBER element at once: per site first (sum, mean, latest period), then
   * added up across sites. The latest-period pick only looks at the values of `lastIds`.
   */
  async elements(
    tx: Tx,
    organizationId: string,
    elementIds: string[],
    lastIds: string[],
    scope: Scope,
  ): Promise<Aggregate[]> {
    if (elementIds.length === 0) return [];
    const result = await sql<Aggregate>`
      with per_site as (
        select v.element_id, fs.site_id,
               sum(v.numeric_value) as s, avg(v.numeric_value) as a, count(*) as n,
               -- The latest period's value: the greatest [period key, value] pair. A plain
               -- aggregate (no ORDER BY inside), so the grouping can hash instead of sorting.
               (max(array[(fs.year * 16 + v.period_unit)::float8, v.numeric_value])
                  filter (where v.element_id = any(${lastIds}::uuid[])))[2] as l
          from form_element_submissions v
          join form_submissions sub on sub.organization_id = v.organization_id and sub.id = v.form_submission_id
          join form_sites fs on fs.organization_id = sub.organization_id and fs.id = sub.form_site_id
         where v.organization_id = ${organizationId}
           and v.element_id = any(${elementIds}::uuid[])
           and v.deleted_at is null and v.numeric_value is not null
           and v.status = any(${scope.statuses}::text[])
           and fs.active and fs.year between ${scope.fromYear} and ${scope.toYear}
           ${periodFilter(sql`v.period_unit`, scope)}
           ${siteFilter(sql`fs.site_id`, scope)}
         group by v.element_id, fs.site_id
      )
      select element_id, sum(s)::float8 as sum, sum(l)::float8 as last_sum, sum(a)::float8 as average_sum,
             sum(n)::int as value_count, count(*)::int as site_count
        from per_site group by element_id`.execute(tx);
    return result.rows;
  },

  /** Every requested ACTIVITY element at once: the sum of its activities in scope. */
  async activities(tx: Tx, organizationId: string, elementIds: string[], scope: Scope): Promise<Aggregate[]> {
    if (elementIds.length === 0) return [];
    const result = await sql<Aggregate>`
      select a.element_id, sum(a.value)::float8 as sum, null::float8 as last_sum, sum(a.value)::float8 as average_sum,
             count(*)::int as value_count, count(distinct a.site_id)::int as site_count
        from activities a
        join form_element_submissions v on v.organization_id = a.organization_id and v.id = a.form_element_submission_id
        join form_sites fs on fs.organization_id = a.organization_id and fs.id = a.form_site_id
       where a.organization_id = ${organizationId}
         and a.element_id = any(${elementIds}::uuid[])
         and a.year between ${scope.fromYear} and ${scope.toYear}
         and v.deleted_at is null and v.status = any(${scope.statuses}::text[]) and fs.active
         ${periodFilter(sql`a.period_unit`, scope)}
         ${siteFilter(sql`a.site_id`, scope)}
       group by a.element_id`.execute(tx);
    return result.rows;
  },

  async defaultStatuses(tx: Tx, organizationId: string): Promise<ValueStatus[]> {
    const row = await tx
      .selectFrom('organizations')
      .select('default_statuses')
      .where('id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return row.default_statuses;
  },

  /** The organization's sites among `ids`. */
  async existingSites(tx: Tx, organizationId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await tx
      .selectFrom('sites')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
    return new Set(rows.map((r) => r.id));
  },

  /** The sites and all their descendants (one recursive query). */
  async withDescendants(tx: Tx, organizationId: string, ids: string[]): Promise<string[]> {
    const result = await sql<{ id: string }>`
      with recursive tree(id) as (
        select unnest(${ids}::uuid[])
        union
        select s.id from sites s join tree on s.parent_id = tree.id where s.organization_id = ${organizationId}
      )
      select id from tree`.execute(tx);
    return result.rows.map((r) => r.id);
  },
};
