import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import { inSiteScope, type SiteScope } from '../access/index.ts';

/** Which (form, site, year) triples are active; every method takes the organization id. */
export const formSitesRepository = {
  /** The active triples of a form in the given years. */
  active(tx: Tx, organizationId: string, formId: string, years: number[]) {
    return tx
      .selectFrom('form_sites')
      .select(['id', 'site_id', 'year'])
      .where('organization_id', '=', organizationId)
      .where('form_id', '=', formId)
      .where('year', 'in', years)
      .where('active', '=', true)
      .execute();
  },

  /** Activates the pairs, reviving earlier rows so that their data reappears. */
  async activate(tx: Tx, organizationId: string, formId: string, pairs: { siteId: string; year: number }[]) {
    if (pairs.length === 0) return;
    await sql`
      insert into form_sites (organization_id, form_id, site_id, year)
      select ${organizationId}, ${formId}, p.site_id, p.year
        from unnest(${pairs.map((p) => p.siteId)}::uuid[], ${pairs.map((p) => p.year)}::int[]) as p(site_id, year)
      on conflict (organization_id, form_id, site_id, year)
      do update set active = true, updated_at = now()`.execute(tx);
  },

  async deactivate(tx: Tx, organizationId: string, ids: string[]) {
    if (ids.length === 0) return;
    await tx
      .updateTable('form_sites')
      .set({ active: false, updated_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
  },

  /** Active triples of live forms on sites in the scope, with optional filters. */
  list(
    tx: Tx,
    organizationId: string,
    scope: SiteScope,
    filter: { formId?: string | undefined; siteId?: string | undefined; year?: number | undefined },
  ) {
    let query = tx
      .selectFrom('form_sites as fs')
      .innerJoin('forms as f', (join) =>
        join.onRef('f.organization_id', '=', 'fs.organization_id').onRef('f.id', '=', 'fs.form_id'),
      )
      .select(['fs.id', 'fs.form_id', 'fs.site_id', 'fs.year'])
      .where('fs.organization_id', '=', organizationId)
      .where('fs.active', '=', true)
      .where('f.deleted_at', 'is', null)
      .where((eb) => inSiteScope(eb, 'fs.site_id', scope));
    if (filter.formId) query = query.where('fs.form_id', '=', filter.formId);
    if (filter.siteId) query = query.where('fs.site_id', '=', filter.siteId);
    if (filter.year !== undefined) query = query.where('fs.year', '=', filter.year);
    return query.orderBy('fs.form_id').orderBy('fs.year').orderBy('fs.site_id').execute();
  },
};
