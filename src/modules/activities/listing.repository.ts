import { type Expression, type SqlBool, sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { SiteScope } from '../access/access.policy.ts';
import { inSiteScope } from '../access/site-scope.ts';

/** What GET /activities filters by: one element, then optional sites, years and periods. */
export interface ActivityFilter {
  elementId: string;
  siteIds: string[] | null;
  years: number[] | null;
  periodUnits: number[] | null;
  scope: SiteScope;
}

/**
 * The conditions shared by the activity list and the marker list (both tables are `a`), with
 * the caller's site scope already turned into a condition.
 */
function conditions(filter: ActivityFilter, inScope: Expression<SqlBool>): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [sql<SqlBool>`a.element_id = ${filter.elementId}`, inScope];
  if (filter.siteIds) parts.push(sql<SqlBool>`a.site_id = any(${filter.siteIds}::uuid[])`);
  if (filter.years) parts.push(sql<SqlBool>`a.year = any(${filter.years}::int[])`);
  if (filter.periodUnits) parts.push(sql<SqlBool>`a.period_unit = any(${filter.periodUnits}::int[])`);
  return sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
}

/** Site name order of the API (case-insensitive, then byte order: the same on both engines). */
const bySiteName = [sql`lower(s.name) collate "C"`, sql`s.name collate "C"`] as const;

/** A row of the activity page, with the total the page is part of (null: no row matched). */
interface PageRow {
  total: number;
  id: string | null;
  form_element_submission_id: string;
  input: Record<string, unknown>;
  value: number;
  site_id: string;
  site_name: string;
  year: number;
  period_unit: number;
  metadata: Record<string, unknown>;
}

/**
 * Reads for GET /activities; every method takes the organization id.
 *
 * A page costs what the page holds, whatever the element holds, and whatever the planner's
 * statistics say: the listing walks the element's value rows (one per site, year and period:
 * few), each of which keeps its number of activities (`activity_count`, kept by triggers). Their
 * running sum in listing order gives the total and tells which value rows the page falls in;
 * only those rows' activities are read, through the (value, position) unique index, skipping
 * within a value row at most the offset. One statement, so one round trip.
 */
export const listingRepository = {
  async page(
    tx: Tx,
    organizationId: string,
    filter: ActivityFilter & { formId: string },
    page: { limit: number; offset: number },
  ) {
    const from = page.offset;
    const to = page.offset + page.limit;
    const narrow: Expression<SqlBool>[] = [sql<SqlBool>`true`];
    if (filter.siteIds) narrow.push(sql<SqlBool>`fs.site_id = any(${filter.siteIds}::uuid[])`);
    if (filter.years) narrow.push(sql<SqlBool>`fs.year = any(${filter.years}::int[])`);
    if (filter.periodUnits) narrow.push(sql<SqlBool>`v.period_unit = any(${filter.periodUnits}::int[])`);
    const { rows } = await sql<PageRow>`
      with counted as materialized (
        select v.id, fs.site_id, s.name as site_name, fs.year, v.period_unit, v.activity_count as n,
               sum(v.activity_count) over w - v.activity_count as before,
               row_number() over w as ord
          from form_sites fs
          join sites s on s.organization_id = fs.organization_id and s.id = fs.site_id
          join form_submissions sub on sub.organization_id = fs.organization_id and sub.form_site_id = fs.id
          join form_element_submissions v
            on v.organization_id = sub.organization_id and v.form_submission_id = sub.id
           and v.element_id = ${filter.elementId}
         where fs.organization_id = ${organizationId} and fs.form_id = ${filter.formId} and fs.active
           and v.activity_count > 0
           and ${inSiteScope(null as never, 'fs.site_id', filter.scope)}
           and ${sql.join(narrow, sql` and `)}
        window w as (order by lower(s.name) collate "C", s.name collate "C", fs.site_id, fs.year, v.period_unit, v.id)
      ),
      total as (select coalesce(sum(n), 0)::int as total from counted)
      select total.total, p.*
        from total
        left join lateral (
          select a.id, a.form_element_submission_id, a.input, a.value, c.site_id, c.site_name, c.year,
                 c.period_unit, a.metadata, c.ord, a.position
            from counted c
            cross join lateral (
              select a.id, a.form_element_submission_id, a.input, a.value, a.metadata, a.position
                from activities a
               where a.organization_id = ${organizationId} and a.form_element_submission_id = c.id
               order by a.position
              offset greatest(${from}::bigint - c.before, 0)
               limit least(c.before + c.n, ${to}::bigint) - greatest(c.before, ${from}::bigint)
            ) a
           where c.before < ${to}::bigint and c.before + c.n > ${from}::bigint
        ) p on true
       order by p.ord, p.position`.execute(tx);
    const total = rows[0]?.total ?? 0;
    return { total, rows: rows.filter((r) => r.id !== null) as Array<PageRow & { id: string }> };
  },

  /** The no-activity markers matching the same filter, in the same order. */
  markers(tx: Tx, organizationId: string, formId: string, filter: ActivityFilter) {
    return tx
      .selectFrom('no_activity_markers as a')
      .innerJoin('form_sites as fs', (j) =>
        j
          .onRef('fs.organization_id', '=', 'a.organization_id')
          .onRef('fs.form_id', '=', 'a.form_id')
          .onRef('fs.site_id', '=', 'a.site_id')
          .onRef('fs.year', '=', 'a.year'),
      )
      .innerJoin('sites as s', (j) =>
        j.onRef('s.organization_id', '=', 'a.organization_id').onRef('s.id', '=', 'a.site_id'),
      )
      .select(['a.id', 'a.site_id', 's.name as site_name', 'a.year', 'a.period_unit', 'a.created_at'])
      .where('a.organization_id', '=', organizationId)
      .where('a.form_id', '=', formId)
      .where('fs.active', '=', true)
      .where((eb) => conditions(filter, inSiteScope(eb, 'a.site_id', filter.scope)))
      .orderBy(bySiteName[0])
      .orderBy(bySiteName[1])
      .orderBy('a.site_id')
      .orderBy('a.year')
      .orderBy('a.period_unit')
      .execute();
  },
};
