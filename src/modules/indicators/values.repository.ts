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

/** How a breakdown cuts the values into periods: one bucket per year, quarter or month. */
export type Bucket = 'YEARLY' | 'QUARTERLY' | 'MONTHLY';

/**
 * Aggregating per period bucket and per site group instead of over the whole scope.
 * A value's period is placed by its first month: a quarterly form's period unit q starts in month
 * 3(q-1)+1, a yearly form's in January (the elements' forms' period types tell which is which).
 */
export interface Breakdown {
  /** null: no periods (the whole scope only). */
  bucket: Bucket | null;
  /** Elements of QUARTERLY forms and of YEARLY forms (the others are MONTHLY). */
  quarterlyIds: string[];
  yearlyIds: string[];
  /** Site groups, as pairs (group, site); a site may be in several groups. null: one group. */
  groups: { groupIds: string[]; siteIds: string[] } | null;
  /** Only values whose period starts in these months (year × 12 + month − 1), both included. */
  months: { from: number; to: number } | null;
}

/** An aggregate of one group (null: the only one) and period bucket (null: the whole scope). */
export interface BucketAggregate extends Aggregate {
  grp: string | null;
  /** YEARLY: the year; QUARTERLY: year × 4 + quarter − 1; MONTHLY: year × 12 + month − 1. */
  period: number | null;
}

const periodFilter = (column: RawBuilder<unknown>, scope: Scope) =>
  scope.periodUnits ? sql`and ${column} = any(${scope.periodUnits}::int[])` : sql``;
const siteFilter = (column: RawBuilder<unknown>, scope: Scope) =>
  scope.siteIds ? sql`and ${column} = any(${scope.siteIds}::uuid[])` : sql``;

/** The month (0..11) a value's period starts in. */
const firstMonth = (element: RawBuilder<unknown>, unit: RawBuilder<unknown>, b: Breakdown) =>
  sql`(case when ${element} = any(${b.quarterlyIds}::uuid[]) then (${unit} - 1) * 3
            when ${element} = any(${b.yearlyIds}::uuid[]) then 0 else ${unit} - 1 end)`;

/** The period bucket of a value, as an integer (see BucketAggregate.period). */
function bucketOf(
  element: RawBuilder<unknown>,
  year: RawBuilder<unknown>,
  unit: RawBuilder<unknown>,
  b?: Breakdown,
) {
  if (!b?.bucket) return sql`null::int`;
  if (b.bucket === 'YEARLY') return sql`${year}`;
  const month = firstMonth(element, unit, b);
  return b.bucket === 'QUARTERLY' ? sql`(${year} * 4 + ${month} / 3)` : sql`(${year} * 12 + ${month})`;
}

const monthFilter = (
  element: RawBuilder<unknown>,
  year: RawBuilder<unknown>,
  unit: RawBuilder<unknown>,
  b?: Breakdown,
) =>
  b?.months
    ? sql`and ${year} * 12 + ${firstMonth(element, unit, b)} between ${b.months.from} and ${b.months.to}`
    : sql``;

/** The group a site belongs to: a join on the (group, site) pairs, or the one null group. */
const groupJoin = (site: RawBuilder<unknown>, b?: Breakdown) =>
  b?.groups
    ? sql`join unnest(${b.groups.groupIds}::uuid[], ${b.groups.siteIds}::uuid[]) as g(grp, site) on g.site = ${site}`
    : sql``;
const groupOf = (b?: Breakdown) => (b?.groups ? sql`g.grp` : sql`null::uuid`);

/**
 * From per (element, site, group, bucket) rows `per_bucket(element_id, site_id, grp, period, s, n,
 * lk, l)` — sum, count, latest period key and its value — the aggregates of each (element, group,
 * bucket): sites added up. With buckets, also the whole scope's (period null): each site's sum,
 * count and mean over all its values, its value of the latest period of all.
 */
const acrossSites = (b?: Breakdown) => sql`
  per_site as (
    select element_id, site_id, grp, period, s, n, s / n::float8 as a, l from per_bucket
    ${
      b?.bucket
        ? sql`union all
    select element_id, site_id, grp, null::int, sum(s), sum(n), sum(s) / sum(n)::float8, (max(array[lk, l]))[2]
      from per_bucket group by element_id, site_id, grp`
        : sql``
    }
  )
  select element_id, grp, period, sum(s)::float8 as sum, sum(l)::float8 as last_sum,
         sum(a)::float8 as average_sum, sum(n)::int as value_count, count(*)::int as site_count
    from per_site group by element_id, grp, period`;

/** Aggregates over the scope, computed in SQL over the numeric columns. */
export const valuesRepository = {
  /**
   * Every requested NUMBER element at once: per site (and bucket) first (sum, mean, latest
   * period), then added up across sites. The latest-period pick only looks at the values of
   * `lastIds`. Without a breakdown: one row per element, over the whole scope.
   */
  async elements(
    tx: Tx,
    organizationId: string,
    elementIds: string[],
    lastIds: string[],
    scope: Scope,
    breakdown?: Breakdown,
  ): Promise<BucketAggregate[]> {
    if (elementIds.length === 0) return [];
    const key = sql`(fs.year * 16 + v.period_unit)::float8`;
    const result = await sql<BucketAggregate>`
      with per_bucket as (
        select v.element_id, fs.site_id, ${groupOf(breakdown)} as grp,
               ${bucketOf(sql`v.element_id`, sql`fs.year`, sql`v.period_unit`, breakdown)} as period,
               sum(v.numeric_value) as s, count(*) as n,
               -- The latest period's value: the greatest [period key, value] pair. A plain
               -- aggregate (no ORDER BY inside), so the grouping can hash instead of sorting.
               max(${key}) filter (where v.element_id = any(${lastIds}::uuid[])) as lk,
               (max(array[${key}, v.numeric_value])
                  filter (where v.element_id = any(${lastIds}::uuid[])))[2] as l
          from form_element_submissions v
          join form_submissions sub on sub.organization_id = v.organization_id and sub.id = v.form_submission_id
          join form_sites fs on fs.organization_id = sub.organization_id and fs.id = sub.form_site_id
          ${groupJoin(sql`fs.site_id`, breakdown)}
         where v.organization_id = ${organizationId}
           and v.element_id = any(${elementIds}::uuid[])
           and v.deleted_at is null and v.numeric_value is not null
           and v.status = any(${scope.statuses}::text[])
           and fs.active and fs.year between ${scope.fromYear} and ${scope.toYear}
           ${periodFilter(sql`v.period_unit`, scope)}
           ${siteFilter(sql`fs.site_id`, scope)}
           ${monthFilter(sql`v.element_id`, sql`fs.year`, sql`v.period_unit`, breakdown)}
         group by 1, 2, 3, 4
      ),
      ${acrossSites(breakdown)}`.execute(tx);
    return result.rows;
  },

  /** Every requested ACTIVITY element at once: the sum of its activities in scope (per bucket). */
  async activities(
    tx: Tx,
    organizationId: string,
    elementIds: string[],
    scope: Scope,
    breakdown?: Breakdown,
  ): Promise<BucketAggregate[]> {
    if (elementIds.length === 0) return [];
    const result = await sql<BucketAggregate>`
      with per_bucket as (
        select a.element_id, a.site_id, ${groupOf(breakdown)} as grp,
               ${bucketOf(sql`a.element_id`, sql`a.year`, sql`a.period_unit`, breakdown)} as period,
               sum(a.value) as s, count(*) as n, null::float8 as lk, null::float8 as l
          from activities a
          join form_element_submissions v on v.organization_id = a.organization_id and v.id = a.form_element_submission_id
          join form_sites fs on fs.organization_id = a.organization_id and fs.id = a.form_site_id
          ${groupJoin(sql`a.site_id`, breakdown)}
         where a.organization_id = ${organizationId}
           and a.element_id = any(${elementIds}::uuid[])
           and a.year between ${scope.fromYear} and ${scope.toYear}
           and v.deleted_at is null and v.status = any(${scope.statuses}::text[]) and fs.active
           ${periodFilter(sql`a.period_unit`, scope)}
           ${siteFilter(sql`a.site_id`, scope)}
           ${monthFilter(sql`a.element_id`, sql`a.year`, sql`a.period_unit`, breakdown)}
         group by 1, 2, 3, 4
      ),
      ${acrossSites(breakdown)}`.execute(tx);
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

  /** Each of the sites with itself and every descendant, as (root, id) pairs (one recursive query). */
  async descendantsOf(
    tx: Tx,
    organizationId: string,
    ids: string[],
  ): Promise<{ root: string; id: string }[]> {
    const result = await sql<{ root: string; id: string }>`
      with recursive tree(root, id) as (
        select r, r from unnest(${ids}::uuid[]) as r
        union
        select tree.root, s.id from sites s join tree on s.parent_id = tree.id where s.organization_id = ${organizationId}
      )
      select root, id from tree`.execute(tx);
    return result.rows;
  },
};
