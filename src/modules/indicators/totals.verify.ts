import type { Database, Tx } from '../../db/client.ts';
import { totalsRepository } from './totals.repository.ts';

/** A key of `value_totals` whose stored row differs from the values (an absent row counts as 0). */
export interface TotalsDifference {
  organizationId: string;
  siteId: string;
  elementId: string;
  year: number;
  status: string;
  periodUnit: number;
  stored: { total: string; count: number };
  computed: { total: string; count: number };
}

/**
 * Recomputes one organization's pre-aggregated totals (migration 0029) from its values, with the
 * same rules as the direct computation, and lists every key where the stored row differs.
 */
export async function verifyTotals(tx: Tx, organizationId: string): Promise<TotalsDifference[]> {
  const rows = await totalsRepository.differences(tx, organizationId);
  return rows.map((r) => ({
    organizationId,
    siteId: r.site_id,
    elementId: r.element_id,
    year: Number(r.year),
    status: r.status,
    periodUnit: Number(r.period_unit),
    stored: { total: r.stored_total, count: Number(r.stored_count) },
    computed: { total: r.computed_total, count: Number(r.computed_count) },
  }));
}

/**
 * A key of the per-site statistics (migration 0033: LAST and AVERAGE) whose stored row differs
 * from the values: `site` the per-site rows, `subtree` the rows of each site and its ancestors.
 * `stored` and `computed` list the row's figures as text (absent: null).
 */
export interface StatsDifference {
  organizationId: string;
  table: 'site' | 'subtree';
  siteId: string;
  elementId: string;
  year: number;
  periodUnit: number;
  stored: string | null;
  computed: string | null;
}

/** Recomputes one organization's per-site statistics and lists every key that differs. */
export async function verifyStats(tx: Tx, organizationId: string): Promise<StatsDifference[]> {
  const out: StatsDifference[] = [];
  for (const table of ['site', 'subtree'] as const)
    for (const r of await totalsRepository.statsDifferences(tx, organizationId, table))
      out.push({
        organizationId,
        table,
        siteId: r.site_id,
        elementId: r.element_id,
        year: Number(r.year),
        periodUnit: Number(r.period_unit),
        stored: r.stored ? r.stored.join(' ') : null,
        computed: r.computed ? r.computed.join(' ') : null,
      });
  return out;
}

/** Replaces one organization's totals and statistics by the ones recomputed from its values. */
export async function rebuildTotals(tx: Tx, organizationId: string): Promise<void> {
  await totalsRepository.rebuild(tx, organizationId);
}

/**
 * `sdcs verify-aggregates`: the totals and the per-site statistics of every organization (or one) checked in its own transaction, outside
 * row-level security; with `repair`, an organization with differences is rebuilt.
 */
export async function verifyAllTotals(
  database: Database,
  options: { organizationId?: string; repair?: boolean } = {},
): Promise<{
  organizations: number;
  differences: TotalsDifference[];
  statsDifferences: StatsDifference[];
  repaired: string[];
}> {
  const ids = options.organizationId
    ? [options.organizationId]
    : await database.system((tx) => totalsRepository.organizationIds(tx));
  const differences: TotalsDifference[] = [];
  const statsDifferences: StatsDifference[] = [];
  const repaired: string[] = [];
  for (const id of ids) {
    const found = await database.system((tx) => verifyTotals(tx, id));
    const foundStats = await database.system((tx) => verifyStats(tx, id));
    differences.push(...found);
    statsDifferences.push(...foundStats);
    if ((found.length > 0 || foundStats.length > 0) && options.repair) {
      await database.system((tx) => rebuildTotals(tx, id));
      repaired.push(id);
    }
  }
  return { organizations: ids.length, differences, statsDifferences, repaired };
}
