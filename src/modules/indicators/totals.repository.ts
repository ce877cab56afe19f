import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

/** The checks of the pre-aggregated totals (`sdcs verify-aggregates`), outside row-level security. */
export const totalsRepository = {
  /**
   * Every key of one organization where the stored rows (their stripes added up: migration 0042)
   * differ from the totals recomputed from its values.
   */
  async differences(tx: Tx, organizationId: string) {
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
        from (select site_id, element_id, year, status, period_unit, sum(total) as total, sum(value_count) as value_count
                from value_totals where organization_id = ${organizationId}
               group by 1, 2, 3, 4, 5) s
        full join sdcs_computed_value_totals(${organizationId}) c
          on c.site_id = s.site_id and c.element_id = s.element_id and c.year = s.year
         and c.status = s.status and c.period_unit = s.period_unit
       where coalesce(s.total, 0) <> coalesce(c.total, 0) or coalesce(s.value_count, 0) <> coalesce(c.value_count, 0)
       order by 1, 2, 3, 4, 5`.execute(tx);
    return result.rows;
  },

  /** Replaces one organization's totals and per-site statistics by the ones recomputed from its values. */
  async rebuild(tx: Tx, organizationId: string): Promise<void> {
    await sql`select sdcs_rebuild_value_totals(${organizationId})`.execute(tx);
    await sql`select sdcs_rebuild_value_site_stats(${organizationId})`.execute(tx);
  },

  /**
   * Every key of one organization's per-site statistics (migration 0033) where the stored row
   * differs from the one recomputed from its values: `site` the per-site rows, `subtree` the rows
   * of each site and its ancestors; the figures of each side as text (absent: null).
   */
  async statsDifferences(tx: Tx, organizationId: string, table: 'site' | 'subtree') {
    const stored =
      table === 'site'
        ? sql`select site_id, element_id, year, period_unit, array[value_count, total, mean, last_value]::text[] as f
                from value_site_stats where organization_id = ${organizationId}`
        : sql`select site_id, element_id, year, period_unit,
                     array[sum(site_count), sum(value_count), sum(total), sum(mean_sum), sum(last_sum)]::text[] as f
                from value_subtree_stats where organization_id = ${organizationId}
               group by 1, 2, 3, 4 having sum(site_count) <> 0`;
    // A subtree row whose sites all left is kept at zero: it counts as absent (and a row with
    // sites must have exactly the recomputed figures; numeric equality ignores trailing zeros).
    const computed =
      table === 'site'
        ? sql`select site_id, element_id, year, period_unit, array[value_count, total, mean, last_value]::text[] as f
                from sdcs_fresh_value_site_stats(${organizationId}, null, null, null)`
        : sql`select site_id, element_id, year, period_unit, array[site_count, value_count, total, mean_sum, last_sum]::text[] as f
                from sdcs_computed_value_subtree_stats(${organizationId})`;
    const result = await sql<{
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
       order by 1, 2, 3, 4`.execute(tx);
    return result.rows;
  },

  /** The ids of every organization, in order. */
  async organizationIds(tx: Tx): Promise<string[]> {
    const rows = await tx.selectFrom('organizations').select('id').orderBy('id').execute();
    return rows.map((r) => r.id);
  },
};
