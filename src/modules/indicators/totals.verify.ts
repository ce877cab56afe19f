import { sql } from 'kysely';
import type { Database, Tx } from '../../db/client.ts';

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
  const result = await sql<{
    site_id: string;
    element_id: string;
    year: number;
    status: string;
    period_unit: number;
    stored_total: string;
    stored_count: string;
    computed_total: string;
    computed_count: string;
  }>`
    select coalesce(s.site_id, c.site_id) as site_id, coalesce(s.element_id, c.element_id) as element_id,
           coalesce(s.year, c.year) as year, coalesce(s.status, c.status) as status,
           coalesce(s.period_unit, c.period_unit) as period_unit,
           coalesce(s.total, 0)::text as stored_total, coalesce(s.value_count, 0)::text as stored_count,
           coalesce(c.total, 0)::text as computed_total, coalesce(c.value_count, 0)::text as computed_count
      from (select * from value_totals where organization_id = ${organizationId}) s
      full join sdcs_computed_value_totals(${organizationId}) c
        on c.site_id = s.site_id and c.element_id = s.element_id and c.year = s.year
       and c.status = s.status and c.period_unit = s.period_unit
     where coalesce(s.total, 0) <> coalesce(c.total, 0) or coalesce(s.value_count, 0) <> coalesce(c.value_count, 0)
     order by 1, 2, 3, 4, 5`.execute(tx);
  return result.rows.map((r) => ({
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
  const compare = (table: 'site' | 'subtree') => {
    const stored =
      table === 'site'
        ? sql`select site_id, element_id, year, period_unit, array[value_count, total, mean, last_value]::text[] as f
                from value_site_stats where organization_id = ${organizationId}`
        : sql`select site_id, element_id, year, period_unit, array[site_count, value_count, total, mean_sum, last_sum]::text[] as f
                from value_subtree_stats where organization_id = ${organizationId} and site_count <> 0`;
    // A subtree row whose sites all left is kept at zero: it counts as absent (and a row with
    // sites must have exactly the recomputed figures; numeric equality ignores trailing zeros).
    const computed =
      table === 'site'
        ? sql`select site_id, element_id, year, period_unit, array[value_count, total, mean, last_value]::text[] as f
                from sdcs_fresh_value_site_stats(${organizationId}, null, null, null)`
        : sql`select site_id, element_id, year, period_unit, array[site_count, value_count, total, mean_sum, last_sum]::text[] as f
                from sdcs_computed_value_subtree_stats(${organizationId})`;
    return sql<{
      site_id: string;
      element_id: string;
      year: number;
      period_unit: number;
      stored: string[] | null;
      computed: string[] | null;
    }>`
      select coalesce(s.site_id, c.site_id) as site_id, coalesce(s.element_id, c.element_id) as element_id,
             coalesce(s.year, c.year) as year, coalesce(s.period_unit, c.period_unit) as period_unit,
             s.f as stored, c.f as computed
        from (${stored}) s
        full join (${computed}) c
          on c.site_id = s.site_id and c.element_id = s.element_id and c.year = s.year and c.period_unit = s.period_unit
       where s.f is null or c.f is null or s.f::numeric[] <> c.f::numeric[]
       order by 1, 2, 3, 4`;
  };
  const out: StatsDifference[] = [];
  for (const table of ['site', 'subtree'] as const)
    for (const r of (await compare(table).execute(tx)).rows)
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
  await sql`select sdcs_rebuild_value_totals(${organizationId})`.execute(tx);
  await sql`select sdcs_rebuild_value_site_stats(${organizationId})`.execute(tx);
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
    : (
        await database.system((tx) => tx.selectFrom('organizations').select('id').orderBy('id').execute())
      ).map((r) => r.id);
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
