import type { Tx } from '../../db/client.ts';
import type { ValueStatus } from '../../db/schema/index.ts';
import { groupBy } from '../../lib/group-by.ts';
import { SiteTree, siteTree } from '../sites/index.ts';

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
  /**
   * Site groups, as pairs (group, site); a site may be in several groups. null: one group.
   * `cover`: the groups' weighted totals covers when already known (see groupCover).
   */
  groups: {
    groupIds: string[];
    siteIds: string[];
    cover?: { siteIds: string[]; weights: number[]; groupIds: string[] };
  } | null;
  /** Only values whose period starts in these months (year × 12 + month − 1), both included. */
  months: { from: number; to: number } | null;
}

/** An aggregate of one group (null: the only one) and period bucket (null: the whole scope). */
export interface BucketAggregate extends Aggregate {
  grp: string | null;
  /** YEARLY: the year; QUARTERLY: year × 4 + quarter − 1; MONTHLY: year × 12 + month − 1. */
  period: number | null;
}

/**
 * Whether SUM operands are read from the pre-aggregated totals (migration 0029) rather than from
 * the values. Always on in the service; the property test and the benchmarks turn it off to
 * compare with the direct computation.
 */
export const totalsSource = { enabled: true };

/**
 * The sites whose subtree rows of `value_totals`, weighted, add up to exactly the values of the
 * sites of `siteIds` (see SiteTree.cover), for a tree given as (id, parent) rows.
 */
export function coverOf(
  tree: { id: string; parent_id: string | null }[],
  siteIds: string[],
): { siteIds: string[]; weights: number[] } {
  const sites = tree.map((s) => ({ ...s, name: '', code: null, metadata: null }));
  return new SiteTree(null, sites).cover(siteIds);
}

/**
 * Whether `value_subtree_stats` (migration 0033) answers the per-site operands of this scope: one
 * year, every period unit, exactly the organization's default statuses (the ones it is kept
 * for), and no buckets, yearly buckets, or monthly buckets (one period unit each) over months
 * that cover the whole year (the whole scope's row is the year's). Otherwise the values are read.
 */
export function statsServe(scope: Scope, breakdown: Breakdown | undefined, defaults: ValueStatus[]): boolean {
  const year = scope.fromYear;
  const statuses = new Set(scope.statuses);
  return (
    scope.fromYear === scope.toYear &&
    scope.periodUnits === null &&
    statuses.size === new Set(defaults).size &&
    defaults.every((s) => statuses.has(s)) &&
    (breakdown?.bucket ?? null) !== 'QUARTERLY' &&
    (!breakdown?.months || (breakdown.months.from <= year * 12 && breakdown.months.to >= year * 12 + 11))
  );
}

/** The weighted sites of `value_totals` that add up to the scope's sites (see coverOf). */
export async function scopeCover(
  tx: Tx,
  organizationId: string,
  siteIds: string[] | null,
): Promise<{ siteIds: string[]; weights: number[] }> {
  // The whole organization: its own row, the sum of every site's (migration 0038).
  if (siteIds === null) return { siteIds: [organizationId], weights: [1] };
  const tree = await siteTree(tx, organizationId);
  return tree.cover(siteIds);
}

/**
 * The weighted sites of `value_totals` of each group: the group's sites that are in the scope
 * (as the direct computation joins them), covered as in coverOf, from the tree's snapshot.
 */
export async function groupCover(
  tx: Tx,
  organizationId: string,
  siteIds: string[] | null,
  groups: { groupIds: string[]; siteIds: string[] },
): Promise<{ siteIds: string[]; weights: number[]; groupIds: string[] }> {
  const tree = await siteTree(tx, organizationId);
  const inScope = siteIds ? new Set(siteIds) : null;
  const pairs = groups.groupIds.map((group, i) => ({ group, site: groups.siteIds[i]! }));
  const members = groupBy(
    inScope ? pairs.filter((p) => inScope.has(p.site)) : pairs,
    (p) => p.group,
    (p) => p.site,
  );
  const out = { siteIds: [] as string[], weights: [] as number[], groupIds: [] as string[] };
  for (const [group, sites] of members) {
    const cover = tree.cover(sites);
    out.siteIds.push(...cover.siteIds);
    out.weights.push(...cover.weights);
    out.groupIds.push(...cover.siteIds.map(() => group));
  }
  return out;
}
