import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

/** One period's (or, at 0, the form-sites') counts summed over a weighted cover. */
export interface SubtreeCountsRow {
  period_unit: number;
  form_sites: number;
  complete: number;
  partial: number;
  no_activity: number;
  on_time: number;
}

/** Reads and checks of the kept completeness (migration 0035); every method takes the organization id. */
export const keptRepository = {
  /**
   * The subtree rows of a form's year for period 0 (the form-sites) and `units`, each covering
   * site's row weighted (see SiteTree.cover) and added up per period.
   */
  async subtreeCounts(
    tx: Tx,
    org: string,
    q: { formId: string; year: number; units: number[] },
    cover: { siteIds: string[]; weights: number[] },
  ): Promise<SubtreeCountsRow[]> {
    if (cover.siteIds.length === 0) return [];
    const result = await sql<SubtreeCountsRow>`
      select t.period_unit, sum(c.w * t.form_sites)::int as form_sites, sum(c.w * t.complete)::int as complete,
             sum(c.w * t.partial)::int as partial, sum(c.w * t.no_activity)::int as no_activity,
             sum(c.w * t.on_time)::int as on_time
        from unnest(${cover.siteIds}::uuid[], ${cover.weights}::int[]) as c(site_id, w)
        join completeness_subtree t
          on t.organization_id = ${org} and t.form_id = ${q.formId} and t.year = ${q.year}
         and t.site_id = c.site_id and t.period_unit = any(${[0, ...q.units]}::int[])
       group by t.period_unit`.execute(tx);
    return result.rows;
  },

  /**
   * Every row of the organization's cells and subtree counts that differs from the one recomputed
   * from its data (a subtree row's stripes added up; counts that all went back to zero count as
   * absent), as text.
   */
  async differences(tx: Tx, org: string) {
    const result = await sql<{
      tbl: 'cells' | 'subtree';
      key: string;
      stored: string | null;
      computed: string | null;
    }>`
      select 'cells' as tbl, coalesce(s.k, c.k) as key, s.f as stored, c.f as computed
        from (select form_site_id || ' ' || period_unit as k,
                     concat_ws(' ', site_id, form_id, year, status, on_time) as f
                from completeness_cells where organization_id = ${org}) s
        full join (select form_site_id || ' ' || period_unit as k,
                          concat_ws(' ', site_id, form_id, year, status, on_time) as f
                     from sdcs_fresh_completeness_cells(${org}, null)) c on c.k = s.k
       where s.f is distinct from c.f
      union all
      select 'subtree', coalesce(s.k, c.k), s.f, c.f
        from (select concat_ws(' ', site_id, form_id, year, period_unit) as k,
                     concat_ws(' ', sum(form_sites), sum(complete), sum(partial), sum(no_activity), sum(on_time)) as f
                from completeness_subtree
               where organization_id = ${org}
               group by site_id, form_id, year, period_unit
              having (sum(form_sites), sum(complete), sum(partial), sum(no_activity), sum(on_time)) <> (0, 0, 0, 0, 0)) s
        full join (select concat_ws(' ', site_id, form_id, year, period_unit) as k,
                          concat_ws(' ', form_sites, complete, partial, no_activity, on_time) as f
                     from sdcs_computed_completeness_subtree(${org})) c on c.k = s.k
       where s.f is distinct from c.f
       order by 1, 2`.execute(tx);
    return result.rows;
  },

  /** Replaces the organization's cells and subtree counts by the recomputed ones. */
  async rebuild(tx: Tx, org: string): Promise<void> {
    await sql`select sdcs_rebuild_completeness(${org})`.execute(tx);
  },

  async organizationIds(tx: Tx): Promise<string[]> {
    const rows = await tx.selectFrom('organizations').select('id').orderBy('id').execute();
    return rows.map((r) => r.id);
  },
};
