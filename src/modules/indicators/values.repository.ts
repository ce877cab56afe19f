import { type RawBuilder, sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { ValueStatus } from '../../db/schema/index.ts';
import { siteTree } from '../sites/index.ts';
import {
  type Breakdown,
  type BucketAggregate,
  groupCover,
  type Scope,
  scopeCover,
  statsServe,
  totalsSource,
} from './indicators.scope.ts';

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
 * bucket): sites added up. Rows of elements summed without a per-site step have a null site_id
 * (and count no sites). With buckets, also the whole scope's (period null): each site's sum,
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
         sum(a)::float8 as average_sum, sum(n)::int as value_count, count(site_id)::int as site_count
    from per_site group by element_id, grp, period`;

/** Aggregates over the scope, computed in SQL over the numeric columns. */
/** The transactions whose aggregate settings are made (each Kysely transaction is a new object). */
const tuned = new WeakSet<Tx>();

export const indicatorValuesRepository = {
  /**
   * Every requested NUMBER element at once: per site (and bucket) first (sum, mean, latest
   * period), then added up across sites. The latest-period pick only looks at the values of
   * `lastIds`. Without a breakdown: one row per element, over the whole scope. `sumIds` are the
   * elements aggregated as SUM: summed without a per-site step, unless `perSite` (an explained
   * evaluation, which shows how many sites are behind each operand).
   */
  async elements(
    tx: Tx,
    organizationId: string,
    elementIds: string[],
    lastIds: string[],
    scope: Scope,
    breakdown: Breakdown | undefined,
    // Required: an element left out of it is read from the statistics, which hold no SUM element.
    sumIds: string[],
    perSite = false,
  ): Promise<BucketAggregate[]> {
    if (elementIds.length === 0) return [];
    // LAST and AVERAGE operands are read from the per-site statistics (kept for those elements
    // only: migration 0044) when the scope is one they are kept for (see statsServe); SUM operands
    // from the totals, or from the values when explained; the others from the values.
    const sums = new Set(sumIds.filter((id) => !lastIds.includes(id)));
    const sumOnlyIds = perSite ? [] : [...sums];
    const statsIds = [...new Set(elementIds)].filter((id) => !sums.has(id));
    const fromStats =
      totalsSource.enabled &&
      statsIds.length > 0 &&
      statsServe(scope, breakdown, await indicatorValuesRepository.defaultStatuses(tx, organizationId))
        ? statsIds
        : [];
    const rest = elementIds.filter((id) => !fromStats.includes(id));
    const inactive =
      rest.length > 0 ? await indicatorValuesRepository.inactiveSubmissions(tx, organizationId, scope) : [];
    // SUM operands summed without a per-site step are read from the totals: over the scope, or
    // per site group (bySite series, the site-dependent evaluation's groups of sites by key).
    const cover =
      totalsSource.enabled && (sumOnlyIds.length > 0 || fromStats.length > 0)
        ? breakdown?.groups
          ? (breakdown.groups.cover ??
            (await groupCover(tx, organizationId, scope.siteIds, breakdown.groups)))
          : await scopeCover(tx, organizationId, scope.siteIds)
        : undefined;
    const rows: BucketAggregate[] = [];
    if (fromStats.length > 0 && cover)
      rows.push(
        ...(
          await indicatorValuesRepository
            .statsStatement(organizationId, fromStats, lastIds, scope, cover, breakdown)
            .execute(tx)
        ).rows,
      );
    if (rest.length === 0) return rows;
    const statement = indicatorValuesRepository.elementsStatement(
      organizationId,
      rest,
      lastIds,
      { ...scope, inactiveSubmissionIds: inactive, cover },
      breakdown,
      sumOnlyIds,
    );
    return [...rows, ...(await statement.execute(tx)).rows];
  },

  /**
   * The aggregates of `ids` from `value_subtree_stats` (migration 0033) of the weighted sites of
   * the cover (per group when it has groups): one row per (element, group, bucket) with values,
   * and with buckets also the whole scope's (the year's rows, period unit 0). Same figures as
   * the values' per-site branches: sums over sites of each site's sum, mean and latest value
   * (the latter for `lastIds` only), and the number of sites with values.
   */
  statsStatement(
    organizationId: string,
    ids: string[],
    lastIds: string[],
    scope: Scope,
    cover: { siteIds: string[]; weights: number[]; groupIds?: string[] },
    breakdown?: Breakdown,
  ) {
    const grouped = Boolean(cover.groupIds);
    const coverJoin = grouped
      ? sql`join unnest(${cover.siteIds}::uuid[], ${cover.weights}::int[], ${cover.groupIds}::uuid[]) as c(site, w, grp) on c.site = t.site_id`
      : sql`join unnest(${cover.siteIds}::uuid[], ${cover.weights}::int[]) as c(site, w) on c.site = t.site_id`;
    const select = (period: RawBuilder<unknown>, units: RawBuilder<unknown>) => sql`
        select t.element_id, ${grouped ? sql`c.grp` : sql`null::uuid`} as grp, ${period} as period,
               sum(c.w * t.total)::float8 as sum,
               case when t.element_id = any(${lastIds}::uuid[]) then sum(c.w * t.last_sum)::float8 end as last_sum,
               sum(c.w * t.mean_sum)::float8 as average_sum,
               sum(c.w * t.value_count)::int as value_count, sum(c.w * t.site_count)::int as site_count
          from value_subtree_stats t
          ${coverJoin}
         where t.organization_id = ${organizationId}
           and t.element_id = any(${ids}::uuid[])
           and t.year = ${scope.fromYear}
           and ${units}
         group by 1, 2, 3
        having sum(c.w * t.site_count) > 0`;
    const whole = select(sql`null::int`, sql`t.period_unit = 0`);
    if (!breakdown?.bucket) return sql<BucketAggregate>`${whole}`;
    if (breakdown.bucket === 'YEARLY')
      return sql<BucketAggregate>`${whole} union all ${select(sql`${scope.fromYear}::int`, sql`t.period_unit = 0`)}`;
    return sql<BucketAggregate>`${whole} union all ${select(
      bucketOf(sql`t.element_id`, sql`t.year`, sql`t.period_unit`, breakdown),
      sql`t.period_unit > 0 ${monthFilter(sql`t.element_id`, sql`t.year`, sql`t.period_unit`, breakdown)}`,
    )}`;
  },

  /**
   * The submissions of deactivated form-sites in the scope's years: their values are left out.
   * Usually none, and then the aggregate has no condition for them at all.
   */
  async inactiveSubmissions(tx: Tx, organizationId: string, scope: Scope): Promise<string[]> {
    const result = await sql<{ id: string }>`
      select sub.id from form_sites fs
        join form_submissions sub on sub.organization_id = fs.organization_id and sub.form_site_id = fs.id
       where fs.organization_id = ${organizationId} and not fs.active
         and fs.year between ${scope.fromYear} and ${scope.toYear}`.execute(tx);
    return result.rows.map((r) => r.id);
  },

  /**
   * The statement of `elements`: a scan of the aggregate index alone (values carry their site
   * and year), in up to three branches so that each row pays only for what its element needs:
   * `sumOnlyIds` (SUM elements whose per-site detail nobody asked for) are summed per element
   * directly, the others per site, and only `lastIds` pick their latest period.
   */
  elementsStatement(
    organizationId: string,
    elementIds: string[],
    lastIds: string[],
    scope: Scope & {
      inactiveSubmissionIds?: string[];
      /**
       * Read the summed operands from `value_totals` of these weighted sites (see coverOf), per
       * group when the breakdown has groups (`groupIds`, one per site).
       */
      cover?: { siteIds: string[]; weights: number[]; groupIds?: string[] } | undefined;
    },
    breakdown?: Breakdown,
    sumOnlyIds: string[] = [],
  ) {
    const last = new Set(lastIds);
    const sumOnly = new Set(sumOnlyIds.filter((id) => !last.has(id)));
    const unique = [...new Set(elementIds)];
    const summed = unique.filter((id) => sumOnly.has(id));
    const perSite = unique.filter((id) => !last.has(id) && !sumOnly.has(id));
    const lastOnly = unique.filter((id) => last.has(id));
    const key = sql`(v.year * 16 + v.period_unit)::float8`;
    const inactive = scope.inactiveSubmissionIds ?? [];
    const branch = (ids: string[], mode: 'sum' | 'site' | 'last') => {
      const latest = mode === 'last';
      // With site groups and no period buckets (current values), each site's rows are first
      // added up alone, and the (element, site) sums then joined to the groups: the join sees one
      // row per site instead of one per value. With buckets a site has a row per period, and
      // joining the values directly is cheaper.
      const grouped = breakdown?.groups != null && !breakdown.bucket;
      const inner = sql`
        select v.element_id, ${mode === 'sum' && !grouped ? sql`null::uuid` : sql`v.site_id`} as site_id, ${grouped ? sql`null::uuid` : groupOf(breakdown)} as grp,
               ${bucketOf(sql`v.element_id`, sql`v.year`, sql`v.period_unit`, breakdown)} as period,
               sum(v.numeric_value) as s, count(*) as n,
               -- The latest period's value: the greatest [period key, value] pair. A plain
               -- aggregate (no ORDER BY inside), so the grouping can hash instead of sorting.
               ${latest ? sql`max(${key})` : sql`null::float8`} as lk,
               ${latest ? sql`(max(array[${key}, v.numeric_value]))[2]` : sql`null::float8`} as l
          from form_element_submissions v
          ${grouped ? sql`` : groupJoin(sql`v.site_id`, breakdown)}
         where v.organization_id = ${organizationId}
           and v.element_id = any(${ids}::uuid[])
           and v.year between ${scope.fromYear} and ${scope.toYear}
           and v.status = any(${scope.statuses}::text[])
           and v.deleted_at is null and v.numeric_value is not null
           ${periodFilter(sql`v.period_unit`, scope)}
           ${siteFilter(sql`v.site_id`, scope)}
           ${monthFilter(sql`v.element_id`, sql`v.year`, sql`v.period_unit`, breakdown)}
           ${inactive.length > 0 ? sql`and v.form_submission_id <> all(${inactive}::uuid[])` : sql``}
         group by 1, 2, 3, 4`;
      if (!grouped) return inner;
      return sql`
        select x.element_id, ${mode === 'sum' ? sql`null::uuid` : sql`x.site_id`} as site_id, g.grp, x.period,
               sum(x.s) as s, sum(x.n) as n, max(x.lk) as lk, (max(array[x.lk, x.l]))[2] as l
          from (${inner}) x
          ${groupJoin(sql`x.site_id`, breakdown)}
         group by 1, 2, 3, 4`;
    };
    // The summed operands from the totals: the weighted subtree rows of the cover, in the same
    // shape as the values' branch (no site, no group). Values of inactive form-sites are already
    // left out of the totals; a key whose values were all removed has a count of 0 and no row.
    // Each covering site's rows are added up once (per element and bucket), then weighted per
    // group: a site in several groups' covers (the root alone, minus each region, while each
    // region is its country's group) is not read once per group.
    const fromTotals = (
      ids: string[],
      cover: { siteIds: string[]; weights: number[]; groupIds?: string[] },
    ) => sql`
        select p.element_id, null::uuid as site_id, ${cover.groupIds ? sql`c.grp` : sql`null::uuid`} as grp, p.period,
               sum(c.w * p.s)::float8 as s, sum(c.w * p.n)::bigint as n,
               null::float8 as lk, null::float8 as l
          from (
            select t.site_id, t.element_id,
                   ${bucketOf(sql`t.element_id`, sql`t.year`, sql`t.period_unit`, breakdown)} as period,
                   sum(t.total) as s, sum(t.value_count) as n
              from value_totals t
             where t.organization_id = ${organizationId}
               and t.site_id = any(${[...new Set(cover.siteIds)]}::uuid[])
               and t.element_id = any(${ids}::uuid[])
               and t.year between ${scope.fromYear} and ${scope.toYear}
               and t.status = any(${scope.statuses}::text[])
               ${periodFilter(sql`t.period_unit`, scope)}
               ${monthFilter(sql`t.element_id`, sql`t.year`, sql`t.period_unit`, breakdown)}
             group by 1, 2, 3
          ) p
          ${
            cover.groupIds
              ? sql`join unnest(${cover.siteIds}::uuid[], ${cover.weights}::int[], ${cover.groupIds}::uuid[]) as c(site, w, grp) on c.site = p.site_id`
              : sql`join unnest(${cover.siteIds}::uuid[], ${cover.weights}::int[]) as c(site, w) on c.site = p.site_id`
          }
         group by 1, 2, 3, 4
        having sum(c.w * p.n) > 0`;
    const branches = [
      ...(summed.length > 0
        ? [
            scope.cover && Boolean(breakdown?.groups) === Boolean(scope.cover.groupIds)
              ? fromTotals(summed, scope.cover)
              : branch(summed, 'sum'),
          ]
        : []),
      ...(perSite.length > 0 ? [branch(perSite, 'site')] : []),
      ...(lastOnly.length > 0 ? [branch(lastOnly, 'last')] : []),
    ];
    return sql<BucketAggregate>`
      with per_bucket as (${sql.join(branches, sql` union all `)}),
      ${acrossSites(breakdown)}`;
  },

  /**
   * For the aggregate statements of this transaction: enough memory to group by hashing without
   * spilling (a few MB per 10,000 sites × elements), and no JIT compilation, which costs more
   * than it saves on statements of a few hundred milliseconds.
   */
  async tuneForAggregates(tx: Tx): Promise<void> {
    // The settings last until the transaction ends: once per transaction is enough.
    if (tuned.has(tx)) return;
    await sql`select set_config('work_mem', '32MB', true), set_config('jit', 'off', true)`.execute(tx);
    tuned.add(tx);
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

  /** How many sites the organization has (from the tree's snapshot). */
  async siteCount(tx: Tx, organizationId: string): Promise<number> {
    return (await siteTree(tx, organizationId)).size;
  },
};
