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

/**
 * Reads for GET /activities; every method takes the organization id.
 *
 * A page costs what the page holds, not what the element holds: the sites in scope are few and
 * sorted by name first, and for each of them the list index (element, site, year, period,
 * position) yields at most `offset + limit` activities already in order, so the final sort sees
 * at most `sites × (offset + limit)` rows. The total is counted from the same index alone, grouped
 * by (site, year) and joined to the active form-sites, without reading the activity rows.
 */
export const listingRepository = {
  async page(
    tx: Tx,
    organizationId: string,
    filter: ActivityFilter & { formId: string },
    page: { limit: number; offset: number },
  ) {
    const sites = tx
      .selectFrom('sites as s')
      .where('s.organization_id', '=', organizationId)
      .where((eb) => {
        const parts: Expression<SqlBool>[] = [inSiteScope(eb, 's.id', filter.scope)];
        if (filter.siteIds) parts.push(sql<SqlBool>`s.id = any(${filter.siteIds}::uuid[])`);
        return sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
      });
    const narrow = (years: string, periods: string): Expression<SqlBool>[] => {
      const parts: Expression<SqlBool>[] = [];
      if (filter.years) parts.push(sql<SqlBool>`${sql.ref(years)} = any(${filter.years}::int[])`);
      if (filter.periodUnits)
        parts.push(sql<SqlBool>`${sql.ref(periods)} = any(${filter.periodUnits}::int[])`);
      return parts;
    };
    const { total } = await tx
      .selectFrom(
        tx
          .selectFrom('activities as a')
          .select(['a.site_id', 'a.year', sql<number>`count(*)`.as('n')])
          .where('a.organization_id', '=', organizationId)
          .where('a.element_id', '=', filter.elementId)
          .where('a.site_id', 'in', sites.select('s.id'))
          .where((eb) => eb.and(narrow('a.year', 'a.period_unit')))
          .groupBy(['a.site_id', 'a.year'])
          .as('c'),
      )
      .innerJoin('form_sites as fs', (j) =>
        j
          .on('fs.organization_id', '=', organizationId)
          .on('fs.form_id', '=', filter.formId)
          .onRef('fs.site_id', '=', 'c.site_id')
          .onRef('fs.year', '=', 'c.year'),
      )
      .where('fs.active', '=', true)
      .select(sql<number>`coalesce(sum(c.n), 0)::int`.as('total'))
      .executeTakeFirstOrThrow();
    if (total === 0 || page.offset >= total) return { total, rows: [] };
    const reach = page.offset + page.limit;
    const rows = await tx
      .selectFrom(sites.select(['s.id', 's.name']).as('s'))
      .innerJoinLateral(
        (eb) =>
          eb
            .selectFrom('activities as a')
            .innerJoin('form_sites as fs', (j) =>
              j.onRef('fs.organization_id', '=', 'a.organization_id').onRef('fs.id', '=', 'a.form_site_id'),
            )
            .select([
              'a.id',
              'a.form_element_submission_id',
              'a.input',
              'a.value',
              'a.site_id',
              'a.year',
              'a.period_unit',
              'a.position',
              'a.metadata',
            ])
            .where('a.organization_id', '=', organizationId)
            .where('a.element_id', '=', filter.elementId)
            .whereRef('a.site_id', '=', 's.id')
            .where('fs.active', '=', true)
            .where((inner) => inner.and(narrow('a.year', 'a.period_unit')))
            .orderBy('a.year')
            .orderBy('a.period_unit')
            .orderBy('a.position')
            .orderBy('a.id')
            .limit(reach)
            .as('a'),
        (join) => join.onTrue(),
      )
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
      .orderBy('s.id')
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
