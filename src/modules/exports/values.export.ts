import { type RawBuilder, sql } from 'kysely';
import type { PeriodType } from '../../db/schema/index.ts';
import type { Row } from './exports.columns.ts';
import { type ExportContext, periodText } from './exports.filters.ts';
import type { OrderedQuery } from './exports.reader.ts';

interface ValueRecord {
  id: string;
  site_id: string;
  form_id: string;
  form_name: string;
  period_type: PeriodType;
  element_id: string;
  element_key: string;
  element_label: string;
  element_type: string;
  year: number;
  period_unit: number;
  timestamp: Date | null;
  value: unknown;
  unit: string | null;
  original_value: unknown;
  selected_unit: string | null;
  status: string;
  entered_name: string | null;
  entered_email: string | null;
  recorded_at: Date;
  reviewer_name: string | null;
  reviewer_email: string | null;
  reviewed_at: Date | null;
  review_comment: string | null;
  submission_id: string;
  run_id: string | null;
  run_rows: { sheet: string; rowIndex: number }[] | null;
  media_id: string | null;
  media_name: string | null;
  lock_id: string | null;
  locked_at: Date | null;
  locked_by: string | null;
}

/** The filters the value and activity statements share (`v` a table with site_id, year, period_unit). */
export function commonFilters(ctx: ExportContext, alias: string): RawBuilder<unknown> {
  const t = sql.raw(alias);
  const parts = [sql`${t}.organization_id = ${ctx.organizationId}`, sql`${t}.year = ${ctx.year}`];
  if (ctx.formId) parts.push(sql`fs.form_id = ${ctx.formId}`);
  if (ctx.siteIds) parts.push(sql`${t}.site_id = any(${ctx.siteIds}::uuid[])`);
  if (ctx.periodUnits) parts.push(sql`${t}.period_unit = any(${ctx.periodUnits}::int[])`);
  return sql.join(parts, sql` and `);
}

/**
 * Every live value of the year on active form-sites of live forms and elements, in id order,
 * with who entered and reviewed it, where it came from, its evidence and the lock covering it.
 */
export function valuesQuery(ctx: ExportContext): OrderedQuery<ValueRecord, string> {
  const org = ctx.organizationId;
  return {
    keyOf: (row) => row.id,
    statement(after, limit) {
      const extra = [];
      if (ctx.statuses) extra.push(sql`and v.status = any(${ctx.statuses}::text[])`);
      if (ctx.updatedSince)
        extra.push(sql`and (v.recorded_at >= ${ctx.updatedSince} or rv.at >= ${ctx.updatedSince})`);
      if (after !== null) extra.push(sql`and v.id > ${after}::uuid`);
      return sql<ValueRecord>`
        select v.id, v.site_id, f.id as form_id, f.name as form_name, f.period_type,
               e.id as element_id, e.key as element_key, e.label as element_label, e.type as element_type,
               v.year, v.period_unit, v."timestamp", v.value, eu.symbol as unit, v.original_value,
               su.symbol as selected_unit, v.status, ue.name as entered_name, ue.email as entered_email,
               v.recorded_at, rv.name as reviewer_name, rv.email as reviewer_email, rv.at as reviewed_at,
               rv.comment as review_comment, v.form_submission_id as submission_id,
               vis.run_id, vis.rows as run_rows, ev.id as media_id, ev.file_name as media_name,
               lk.id as lock_id, lk.created_at as locked_at, lk.user_name as locked_by
          from form_element_submissions v
          join form_submissions s on s.organization_id = v.organization_id and s.id = v.form_submission_id
          join form_sites fs on fs.organization_id = v.organization_id and fs.id = s.form_site_id
          join forms f on f.organization_id = v.organization_id and f.id = fs.form_id
          join form_elements e on e.organization_id = v.organization_id and e.id = v.element_id
          left join units eu on eu.id = e.unit_id
          left join units su on su.id = v.selected_unit_id
          left join users ue on ue.id = v.user_id
          left join value_import_sources vis
            on vis.organization_id = v.organization_id and vis.value_id = v.id and vis.recorded_at = v.recorded_at
          left join lateral (
            select h.at, h.comment, u.name, u.email
              from form_value_history h left join users u on u.id = h.user_id
             where v.status <> 'COMPLETED' and h.organization_id = v.organization_id
               and h.value_id = v.id and h.action = 'REVIEW'
             order by h.seq desc limit 1) rv on true
          left join lateral (
            select m.id, m.file_name from media m
             where e.type = 'FILE' and jsonb_typeof(v.value) = 'string'
               and m.organization_id = v.organization_id
               and m.id::text = lower(v.value #>> '{}')) ev on true
          left join lateral (
            select l.id, l.created_at, coalesce(nullif(u.name, ''), u.email) as user_name
              from form_locks l left join users u on u.id = l.created_by
             where l.organization_id = v.organization_id and l.form_id = f.id and l.year = v.year
               and l.unlocked_at is null
               and (l.period_unit is null or l.period_unit = v.period_unit)
               and (l.site_id is null or l.site_id = v.site_id)
             order by l.created_at, l.id limit 1) lk on true
         where ${commonFilters(ctx, 'v')} and v.deleted_at is null and v.created_at <= ${ctx.asOf}
           and fs.active and f.deleted_at is null and e.deleted_at is null
           and s.organization_id = ${org}
           ${sql.join(extra, sql` `)}
         order by v.id
         ${limit === null ? sql`` : sql`limit ${limit}`}`;
    },
  };
}

/** A value record as the cells of VALUE_COLUMNS. */
export function valueCells(r: ValueRecord, ctx: ExportContext): Row {
  const site = ctx.sites.get(r.site_id);
  return [
    r.id,
    r.site_id,
    site?.code ?? null,
    site?.name ?? null,
    site?.path ?? null,
    r.form_id,
    r.form_name,
    r.element_id,
    r.element_key,
    r.element_label,
    r.element_type,
    r.year,
    r.period_unit,
    periodText(r.year, r.period_type, r.period_unit),
    r.timestamp,
    r.value,
    r.unit,
    r.original_value,
    r.selected_unit,
    r.status,
    r.entered_name,
    r.entered_email,
    r.recorded_at,
    r.reviewer_name,
    r.reviewer_email,
    r.reviewed_at,
    r.review_comment,
    r.submission_id,
    r.run_id,
    r.run_rows ? r.run_rows.map((x) => `${x.sheet}:${x.rowIndex}`).join(';') : null,
    r.media_id,
    r.media_name,
    r.lock_id,
    r.locked_at,
    r.locked_by,
  ];
}
