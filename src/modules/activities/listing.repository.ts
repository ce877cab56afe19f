import { type Expression, type SqlBool, sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { ElementType, PeriodType } from '../../db/schema/index.ts';
import { inSiteScope, type SiteScope } from '../access/index.ts';

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

/** What GET /activities names: a form, and the key of one of its ACTIVITY elements. */
export interface ListingRequest {
  formId: string;
  key: string;
  /** Sites named by the request (well-formed ids), to tell which are the organization's. */
  namedSiteIds: string[];
  siteIds: string[] | null;
  years: number[] | null;
  periodUnits: number[] | null;
  scope: SiteScope;
}

/** What the one statement of GET /activities found. */
export interface Listing {
  /** The live form (null: none with that id). */
  form: { periodType: PeriodType } | null;
  /** The element the key names (see `resolveActivityElement`; null: none). */
  element: { id: string; type: ElementType; unit: string | null } | null;
  /** Which of `namedSiteIds` are sites of the organization. */
  knownSiteIds: Set<string>;
  total: number;
  rows: Array<PageRow & { id: string }>;
  markers: MarkerRow[];
}

interface MarkerRow {
  id: string;
  site_id: string;
  site_name: string;
  year: number;
  period_unit: number;
  created_at: Date;
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
  /**
   * Everything GET /activities reads, in one statement (one round trip): the form, the element
   * the key names (as `resolveActivityElement` finds it: the live element with that key, else the
   * one ACTIVITY element whose definition has that key), which named sites exist, the page with
   * its total, and the markers. The caller turns a missing form or element, or an element of
   * another type, into its refusal (the page and markers of such a request are empty).
   */
  async list(
    tx: Tx,
    organizationId: string,
    request: ListingRequest,
    page: { limit: number; offset: number },
  ): Promise<Listing> {
    const from = page.offset;
    const to = page.offset + page.limit;
    const narrow: Expression<SqlBool>[] = [sql<SqlBool>`true`];
    if (request.siteIds) narrow.push(sql<SqlBool>`fs.site_id = any(${request.siteIds}::uuid[])`);
    if (request.years) narrow.push(sql<SqlBool>`fs.year = any(${request.years}::int[])`);
    if (request.periodUnits) narrow.push(sql<SqlBool>`v.period_unit = any(${request.periodUnits}::int[])`);
    const markerFilter: Expression<SqlBool>[] = [
      sql<SqlBool>`a.element_id = (select id from el)`,
      inSiteScope(null as never, 'a.site_id', request.scope),
    ];
    if (request.siteIds) markerFilter.push(sql<SqlBool>`a.site_id = any(${request.siteIds}::uuid[])`);
    if (request.years) markerFilter.push(sql<SqlBool>`a.year = any(${request.years}::int[])`);
    if (request.periodUnits)
      markerFilter.push(sql<SqlBool>`a.period_unit = any(${request.periodUnits}::int[])`);
    const { rows } = await sql<
      PageRow & {
        kind: 'page' | 'marker';
        form_period_type: PeriodType | null;
        element_id: string | null;
        element_type: ElementType | null;
        element_unit: string | null;
        known_site_ids: string[] | null;
        created_at: Date | null;
      }
    >`
      with f as materialized (
        select id, period_type from forms
         where organization_id = ${organizationId} and id = ${request.formId} and deleted_at is null
      ),
      els as materialized (
        select e.id, e.key, e.type, e.position, e.created_at, d.key as definition_key, d.unit_id
          from form_elements e
          left join activity_definitions d
            on d.id = e.activity_definition_id and (d.organization_id = ${organizationId} or d.is_common)
         where e.organization_id = ${organizationId} and e.form_id = (select id from f) and e.deleted_at is null
      ),
      el as materialized (
        (select id, type, unit_id from els where key = ${request.key} order by position, created_at, key limit 1)
        union all
        select id, type, unit_id from els
         where type = 'ACTIVITY' and definition_key = ${request.key}
           and not exists (select 1 from els where key = ${request.key})
           and (select count(*) from els where type = 'ACTIVITY' and definition_key = ${request.key}) = 1
      ),
      counted as materialized (
        select v.id, fs.site_id, s.name as site_name, fs.year, v.period_unit, v.activity_count as n,
               sum(v.activity_count) over w - v.activity_count as before,
               row_number() over w as ord
          from form_sites fs
          join sites s on s.organization_id = fs.organization_id and s.id = fs.site_id
          join form_submissions sub on sub.organization_id = fs.organization_id and sub.form_site_id = fs.id
          join form_element_submissions v
            on v.organization_id = sub.organization_id and v.form_submission_id = sub.id
           and v.element_id = (select id from el where type = 'ACTIVITY')
         where fs.organization_id = ${organizationId} and fs.form_id = (select id from f) and fs.active
           and v.activity_count > 0
           and ${inSiteScope(null as never, 'fs.site_id', request.scope)}
           and ${sql.join(narrow, sql` and `)}
        window w as (order by lower(s.name) collate "C", s.name collate "C", fs.site_id, fs.year, v.period_unit, v.id)
      ),
      total as (select coalesce(sum(n), 0)::int as total from counted),
      markers as (
        select a.id, a.site_id, s.name as site_name, a.year, a.period_unit, a.created_at,
               row_number() over (order by lower(s.name) collate "C", s.name collate "C", a.site_id, a.year,
                                           a.period_unit) as ord
          from no_activity_markers a
          join form_sites fs
            on fs.organization_id = a.organization_id and fs.form_id = a.form_id and fs.site_id = a.site_id
           and fs.year = a.year
          join sites s on s.organization_id = a.organization_id and s.id = a.site_id
         where a.organization_id = ${organizationId} and a.form_id = (select id from f) and fs.active
           and exists (select 1 from el where type = 'ACTIVITY')
           and ${sql.join(markerFilter, sql` and `)}
      )
      select * from (
        select 'page' as kind, 0 as part, p.ord, p.position,
               (select period_type from f) as form_period_type,
               (select id from el) as element_id, (select type from el) as element_type,
               (select symbol from units where id = (select unit_id from el)) as element_unit,
               array(select id::text from sites
                      where organization_id = ${organizationId}
                        and id = any(${request.namedSiteIds}::uuid[])) as known_site_ids,
               total.total, p.id, p.form_element_submission_id, p.input, p.value, p.site_id, p.site_name,
               p.year, p.period_unit, p.metadata, null::timestamptz as created_at
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
        union all
        select 'marker', 1, m.ord, 0, null, null, null, null, null, null, m.id, null, null, null, m.site_id,
               m.site_name, m.year, m.period_unit, null, m.created_at
          from markers m
      ) listing
      order by part, ord, position`.execute(tx);
    const head = rows[0]!;
    return {
      form: head.form_period_type ? { periodType: head.form_period_type } : null,
      element: head.element_id
        ? { id: head.element_id, type: head.element_type!, unit: head.element_unit }
        : null,
      knownSiteIds: new Set(head.known_site_ids ?? []),
      total: head.total ?? 0,
      rows: rows.filter((r) => r.kind === 'page' && r.id !== null) as Array<PageRow & { id: string }>,
      markers: rows
        .filter((r) => r.kind === 'marker')
        .map((r) => ({
          id: r.id!,
          site_id: r.site_id,
          site_name: r.site_name,
          year: r.year,
          period_unit: r.period_unit,
          created_at: r.created_at!,
        })),
    };
  },
};
