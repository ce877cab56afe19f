import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { SiteScope } from '../access/access.policy.ts';
import { inSiteScope } from '../access/site-scope.ts';

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

/** Submissions that are visible: their form is live and their form-site active. */
export function visibleSubmissions(tx: Tx, organizationId: string) {
  return tx
    .selectFrom('form_submissions as s')
    .innerJoin('form_sites as fs', (j) =>
      j.onRef('fs.organization_id', '=', 's.organization_id').onRef('fs.id', '=', 's.form_site_id'),
    )
    .innerJoin('forms as f', (j) =>
      j.onRef('f.organization_id', '=', 'fs.organization_id').onRef('f.id', '=', 'fs.form_id'),
    )
    .where('s.organization_id', '=', organizationId)
    .where('fs.active', '=', true)
    .where('f.deleted_at', 'is', null);
}

/** Submissions and how requests name their form and site; every method takes the organization id. */
export const submissionsRepository = {
  /** Live forms whose metadata field `key` has the text `value` (at most two: enough to tell). */
  formsByMetadata(tx: Tx, organizationId: string, key: string, value: string) {
    return tx
      .selectFrom('forms')
      .select(['id', 'period_type'])
      .where('organization_id', '=', organizationId)
      .where('deleted_at', 'is', null)
      .where(sql`metadata ->> ${key}`, '=', value)
      .limit(2)
      .forShare()
      .execute();
  },

  sitesByMetadata(tx: Tx, organizationId: string, key: string, value: string) {
    return tx
      .selectFrom('sites')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where(sql`metadata ->> ${key}`, '=', value)
      .limit(2)
      .execute();
  },

  siteExists(tx: Tx, organizationId: string, id: string) {
    return tx
      .selectFrom('sites')
      .select('id')
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

  /**
   * Creates or touches the one submission of a form-site; the row stays locked until commit.
   * `touch`: a stored submission's `updatedAt` becomes now (false for a request that writes no value).
   */
  upsertSubmission(tx: Tx, organizationId: string, formSiteId: string, userId: string, touch = true) {
    return tx
      .insertInto('form_submissions')
      .values({ organization_id: organizationId, form_site_id: formSiteId, user_id: userId })
      .onConflict((oc) =>
        oc
          .columns(['organization_id', 'form_site_id'])
          .doUpdateSet({ updated_at: touch ? sql`now()` : sql`form_submissions.updated_at` }),
      )
      .returning(['id', 'user_id', 'created_at', 'updated_at'])
      .executeTakeFirstOrThrow();
  },

  users(tx: Tx, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return tx.selectFrom('users').select(['id', 'name', 'email', 'image']).where('id', 'in', ids).execute();
  },

  findSubmission(tx: Tx, organizationId: string, id: string) {
    return visibleSubmissions(tx, organizationId)
      .select(SUBMISSION_COLUMNS)
      .where('s.id', '=', id)
      .executeTakeFirst();
  },

  /**
   * One page of visible submissions in the scope, and how many there are in all, in one statement
   * (the total is a window count over the matching rows; a second statement counts only when
   * the page is past the end). Ordered by year (latest first), form id and site id: a submission
   * is unique per (form, site, year), so the order is total and pages neither overlap nor skip.
   */
  async listSubmissions(
    tx: Tx,
    organizationId: string,
    scope: SiteScope,
    filter: { formId?: string | undefined; siteId?: string | undefined; year?: number | undefined },
    page: { limit: number; offset: number },
  ) {
    let base = visibleSubmissions(tx, organizationId).where((eb) => inSiteScope(eb, 'fs.site_id', scope));
    if (filter.formId) base = base.where('fs.form_id', '=', filter.formId);
    if (filter.siteId) base = base.where('fs.site_id', '=', filter.siteId);
    if (filter.year !== undefined) base = base.where('fs.year', '=', filter.year);
    const rows = await base
      .select(SUBMISSION_COLUMNS)
      .select(sql<number>`count(*) over ()`.as('total'))
      .orderBy('fs.year', 'desc')
      .orderBy('fs.form_id')
      .orderBy('fs.site_id')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    if (rows.length > 0) return { total: Number(rows[0]!.total), rows };
    if (page.offset === 0) return { total: 0, rows };
    const { total } = await base
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    return { total: Number(total), rows };
  },
};
