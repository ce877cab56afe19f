import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { PeriodType } from '../../db/schema/index.ts';
import type { UnitFactor } from '../units/index.ts';
import type { ElementInfo } from './element-types.ts';

/**
 * Where values go: the (form, site, year) a request names, the submission rows that hold the
 * values, and the authors an answer names; every method takes the organization id.
 */
export const valueTargetsRepository = {
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

  /**
   * Resolves many (form, site, year) named by id in one statement: per target (by `i`) the live
   * form (locked for share, as a submission keeps its form from being deleted under it), the site
   * and the active form-site; beside them the live elements of the forms found (in form order)
   * and the units those elements and `unitIds` name (the catalog's and the organization's own).
   * Ids must be UUIDs (callers filter); a target whose form or site is unknown gets nulls.
   */
  async resolveTargets(
    tx: Tx,
    organizationId: string,
    targets: { formId: string | null; siteId: string | null; year: number }[],
    unitIds: string[],
  ) {
    const input = JSON.stringify(
      targets.map((t, i) => ({ i, form_id: t.formId, site_id: t.siteId, year: t.year })),
    );
    const { rows } = await sql<{
      targets: {
        i: number;
        form_id: string | null;
        period_type: PeriodType | null;
        site_id: string | null;
        site_name: string | null;
        form_site_id: string | null;
      }[];
      elements: (ElementInfo & { form_id: string })[];
      units: UnitFactor[];
    }>`
      with t as (
        select * from jsonb_to_recordset(${input}::jsonb) as t(i int, form_id uuid, site_id uuid, year int)
      ), r as (
        select t.i, f.id as form_id, f.period_type, s.id as site_id, s.name as site_name,
               fs.id as form_site_id
          from t
          left join lateral (
            select id, period_type from forms
             where organization_id = ${organizationId} and id = t.form_id and deleted_at is null
               for share) f on true
          left join sites s on s.organization_id = ${organizationId} and s.id = t.site_id
          left join form_sites fs on fs.organization_id = ${organizationId} and fs.form_id = f.id
                                 and fs.site_id = s.id and fs.year = t.year and fs.active
      ), e as (
        select id, form_id, key, label, type, unit_id, options, metadata, activity_definition_id,
               min_value, max_value, integer_only, warn_change_factor, position, created_at
          from form_elements
         where organization_id = ${organizationId} and deleted_at is null
           and form_id in (select form_id from r where form_id is not null)
      )
      select
        (select coalesce(json_agg(r order by r.i), '[]') from r) as targets,
        (select coalesce(json_agg(json_build_object(
                  'id', e.id, 'form_id', e.form_id, 'key', e.key, 'label', e.label, 'type', e.type,
                  'unit_id', e.unit_id, 'options', e.options, 'metadata', e.metadata,
                  'activity_definition_id', e.activity_definition_id, 'min_value', e.min_value,
                  'max_value', e.max_value, 'integer_only', e.integer_only,
                  'warn_change_factor', e.warn_change_factor)
                order by e.form_id, e.position, e.created_at, e.key), '[]') from e) as elements,
        (select coalesce(json_agg(json_build_object(
                  'id', u.id, 'symbol', u.symbol, 'name', u.name, 'dimension', u.dimension,
                  'factor_to_base', u.factor_to_base)), '[]')
           from units u
          where (u.organization_id is null or u.organization_id = ${organizationId})
            and (u.id = any(${unitIds}::uuid[]) or u.id in (select unit_id from e))) as units
    `.execute(tx);
    return rows[0]!;
  },

  /**
   * Creates or touches the submissions of these form-sites in one statement (in form-site order,
   * so two writers lock them in the same order); each row stays locked until commit.
   * `touch`: a stored submission's `updatedAt` becomes now (false for a request that writes no value).
   */
  upsertSubmissions(tx: Tx, organizationId: string, formSiteIds: string[], userId: string, touch: boolean) {
    if (formSiteIds.length === 0) return Promise.resolve([]);
    return tx
      .insertInto('form_submissions')
      .values(
        [...new Set(formSiteIds)]
          .sort()
          .map((id) => ({ organization_id: organizationId, form_site_id: id, user_id: userId })),
      )
      .onConflict((oc) =>
        oc
          .columns(['organization_id', 'form_site_id'])
          .doUpdateSet({ updated_at: touch ? sql`now()` : sql`form_submissions.updated_at` }),
      )
      .returning(['id', 'form_site_id', 'user_id', 'created_at', 'updated_at'])
      .execute();
  },

  users(tx: Tx, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return tx.selectFrom('users').select(['id', 'name', 'email', 'image']).where('id', 'in', ids).execute();
  },
};
