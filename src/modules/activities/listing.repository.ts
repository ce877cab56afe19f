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

/** Activities on active form-sites, with their site (name), in the caller's scope. */
function activitiesIn(tx: Tx, organizationId: string, filter: ActivityFilter) {
  return tx
    .selectFrom('activities as a')
    .innerJoin('form_sites as fs', (j) =>
      j.onRef('fs.organization_id', '=', 'a.organization_id').onRef('fs.id', '=', 'a.form_site_id'),
    )
    .innerJoin('sites as s', (j) =>
      j.onRef('s.organization_id', '=', 'a.organization_id').onRef('s.id', '=', 'a.site_id'),
    )
    .where('a.organization_id', '=', organizationId)
    .where('fs.active', '=', true)
    .where((eb) => conditions(filter, inSiteScope(eb, 'a.site_id', filter.scope)));
}

/** Site name order of the API (case-insensitive, then byte order: the same on both engines). */
const bySiteName = [sql`lower(s.name) collate "C"`, sql`s.name collate "C"`] as const;

/** Reads for GET /activities; every method takes the organization id. */
export const listingRepository = {
  async page(
    tx: Tx,
    organizationId: string,
    filter: ActivityFilter,
    page: { limit: number; offset: number },
  ) {
    const base = activitiesIn(tx, organizationId, filter);
    const { total } = await base.select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow();
    const rows = await base
      .select([
        'a.id',
        'a.form_element_submission_id',
        'a.input',
        'a.value',
        'a.site_id',
        's.name as site_name',
        'a.year',
        'a.period_unit',
        'a.metadata',
      ])
      .orderBy(bySiteName[0])
      .orderBy(bySiteName[1])
      .orderBy('a.site_id')
      .orderBy('a.year')
      .orderBy('a.period_unit')
      .orderBy('a.position')
      .orderBy('a.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return { total, rows };
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
