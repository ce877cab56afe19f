import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import { inSiteScope, type SiteScope } from '../access/index.ts';
import { visibleSubmissions } from '../values/index.ts';

const SUBMISSION_COLUMNS = [
  's.id',
  's.organization_id',
  's.form_site_id',
  's.user_id',
  's.created_at',
  's.updated_at',
  'fs.form_id',
  'fs.site_id',
  'fs.year',
] as const;

/** Submissions as a resource (read, listed); every method takes the organization id. */
export const submissionsRepository = {
  /** A site of the organization (its id and name), or undefined. */
  siteExists(tx: Tx, organizationId: string, id: string) {
    return tx
      .selectFrom('sites')
      .select(['id', 'name'])
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  activeFormSite(tx: Tx, organizationId: string, formId: string, siteId: string, year: number) {
    return tx
      .selectFrom('form_sites')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('form_id', '=', formId)
      .where('site_id', '=', siteId)
      .where('year', '=', year)
      .where('active', '=', true)
      .executeTakeFirst();
  },

  findSubmission(tx: Tx, organizationId: string, id: string) {
    return visibleSubmissions(tx, organizationId)
      .select(SUBMISSION_COLUMNS)
      .where('s.id', '=', id)
      .executeTakeFirst();
  },

  /**
   * One page of visible submissions in the scope, and how many there are in all, in one statement
   * (a second statement counts only when the page is past the end). Ordered by year (latest
   * first), form id and site id: a submission is unique per (form, site, year), so the order is
   * total and pages neither overlap nor skip. The page walks the form sites in that order through
   * an index of the active form sites that have a submission (`submitted`, migration 0020); the
   * total sums the per-(form, year) counts kept beside them, or, for a list narrowed to some
   * sites, counts those sites' form sites. Neither sorts nor counts every submission of the
   * organization: a page costs the same at a thousand submissions and at a hundred thousand.
   * A form site's form always exists; a deleted form's sites are left out by the (few) deleted
   * forms' ids.
   */
  async listSubmissions(
    tx: Tx,
    organizationId: string,
    scope: SiteScope,
    filter: { formId?: string | undefined; siteId?: string | undefined; year?: number | undefined },
    page: { limit: number; offset: number },
  ) {
    const deletedForms = sql`array(select id from forms
      where organization_id = ${organizationId} and deleted_at is not null)`;
    let listed = tx
      .selectFrom('form_sites as fs')
      .where('fs.organization_id', '=', organizationId)
      // Literal, not parameters: the planner must see the partial indexes' predicate.
      .where(sql<boolean>`fs.active and fs.submitted`)
      .where(sql<boolean>`fs.form_id <> all(${deletedForms})`)
      .where((eb) => inSiteScope(eb, 'fs.site_id', scope));
    if (filter.formId) listed = listed.where('fs.form_id', '=', filter.formId);
    if (filter.siteId) listed = listed.where('fs.site_id', '=', filter.siteId);
    if (filter.year !== undefined) listed = listed.where('fs.year', '=', filter.year);
    // Not narrowed to some sites: the sum of the (form, year) counts. Narrowed: the form sites
    // of those sites, through their indexes.
    const counted =
      scope.all && !filter.siteId
        ? (() => {
            let sums = tx
              .selectFrom('form_submission_counts as c')
              .where('c.organization_id', '=', organizationId)
              .where(sql<boolean>`c.form_id <> all(${deletedForms})`)
              .select(sql<number>`coalesce(sum(c.submissions), 0)::int`.as('total'));
            if (filter.formId) sums = sums.where('c.form_id', '=', filter.formId);
            if (filter.year !== undefined) sums = sums.where('c.year', '=', filter.year);
            return sums;
          })()
        : listed.select((eb) => eb.fn.countAll<number>().as('total'));
    const pageQuery = listed
      .innerJoin('form_submissions as s', (j) =>
        j.onRef('s.organization_id', '=', 'fs.organization_id').onRef('s.form_site_id', '=', 'fs.id'),
      )
      .select(SUBMISSION_COLUMNS)
      .select(() => counted.as('total'))
      .orderBy('fs.year', 'desc')
      .orderBy('fs.form_id')
      .orderBy('fs.site_id')
      .limit(page.limit)
      .offset(page.offset);
    // The page and the current values of its submissions (live values of live elements, in form
    // order, with their authors), one row per value (or one without a value): one statement.
    const joined = await tx
      .with('p', () => pageQuery)
      // Materialized: read once, whatever the planner guesses of the page's size (a guess of one
      // row, on tables not analyzed yet, made it read the values again for every submission).
      .with(
        (wb) => wb('cv').materialized(),
        (db) =>
          db
            .selectFrom('form_element_submissions as v')
            .innerJoin('form_elements as e', (j) =>
              j.onRef('e.organization_id', '=', 'v.organization_id').onRef('e.id', '=', 'v.element_id'),
            )
            .innerJoin('users as u', 'u.id', 'v.user_id')
            .select([
              'v.form_submission_id as value_submission_id',
              'v.id as value_id',
              'v.element_id',
              'v.period_unit',
              'v.timestamp',
              'v.value',
              'v.original_value',
              'v.selected_unit_id',
              'v.status',
              'v.user_id as value_user_id',
              'v.recorded_at',
              'v.deleted_at',
              'e.key as element_key',
              'e.position as element_position',
              'u.name as user_name',
              'u.email as user_email',
              'u.image as user_image',
            ])
            .where('v.organization_id', '=', organizationId)
            // The page's submissions by the values' (submission, element, …) key, read once.
            .where(sql<boolean>`v.form_submission_id = any(array(select id from p))`)
            .where('v.deleted_at', 'is', null)
            .where('e.deleted_at', 'is', null),
      )
      .selectFrom('p')
      .leftJoin('cv', 'cv.value_submission_id', 'p.id')
      .selectAll('p')
      .selectAll('cv')
      .orderBy('p.year', 'desc')
      .orderBy('p.form_id')
      .orderBy('p.site_id')
      .orderBy('cv.element_position')
      .orderBy('cv.element_key')
      .orderBy('cv.period_unit')
      .orderBy('cv.timestamp')
      .execute();
    const rows: ((typeof joined)[number] & { values: typeof joined })[] = [];
    for (const row of joined) {
      const last = rows.at(-1);
      const submission = last && last.id === row.id ? last : undefined;
      if (submission) {
        submission.values.push(row);
      } else {
        rows.push({ ...row, values: row.value_id === null ? [] : [row] });
      }
    }
    if (rows.length > 0) return { total: Number(rows[0]!.total), rows };
    if (page.offset === 0) return { total: 0, rows };
    const { total } = await counted.executeTakeFirstOrThrow();
    return { total: Number(total), rows };
  },
};
