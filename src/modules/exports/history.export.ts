import { sql } from 'kysely';
import type { PeriodType } from '../../db/schema/index.ts';
import type { Row } from './exports.columns.ts';
import { type ExportContext, periodText } from './exports.filters.ts';
import type { OrderedQuery } from './exports.reader.ts';
import { commonFilters } from './values.export.ts';

interface ChangeRecord {
  id: string;
  seq: number;
  record_id: string;
  action: string;
  at: Date;
  user_name: string | null;
  user_email: string | null;
  comment: string | null;
  before: unknown;
  after: unknown;
  site_id: string;
  form_id: string;
  period_type: PeriodType;
  element_key: string;
  year: number;
  period_unit: number;
}

/**
 * The changes of values, or of activities, of the year, in the order they were made (`seq`).
 * History is only ever appended: reading changes made up to the export's start (`at <= asOf`)
 * gives the same rows on both engines, however long the export takes.
 */
export function historyQuery(
  ctx: ExportContext,
  kind: 'value' | 'activity',
): OrderedQuery<ChangeRecord, number> {
  return {
    keyOf: (row) => Number(row.seq),
    statement(after, limit) {
      const since = ctx.updatedSince ? sql`and h.at >= ${ctx.updatedSince}` : sql``;
      const page = after === null ? sql`` : sql`and h.seq > ${after}`;
      const tail = sql`${since} ${page} order by h.seq ${limit === null ? sql`` : sql`limit ${limit}`}`;
      if (kind === 'value') {
        return sql<ChangeRecord>`
          select h.id, h.seq, h.value_id as record_id, h.action, h.at, u.name as user_name,
                 u.email as user_email, h.comment, h.before, h.after, v.site_id, f.id as form_id,
                 f.period_type, e.key as element_key, v.year, v.period_unit
            from form_value_history h
            join form_element_submissions v on v.organization_id = h.organization_id and v.id = h.value_id
            join form_submissions s on s.organization_id = v.organization_id and s.id = v.form_submission_id
            join form_sites fs on fs.organization_id = v.organization_id and fs.id = s.form_site_id
            join forms f on f.organization_id = v.organization_id and f.id = fs.form_id
            join form_elements e on e.organization_id = v.organization_id and e.id = v.element_id
            left join users u on u.id = h.user_id
           where h.organization_id = ${ctx.organizationId} and ${commonFilters(ctx, 'v')}
             and h.at <= ${ctx.asOf} ${tail}`;
      }
      return sql<ChangeRecord>`
        select h.id, h.seq, h.activity_id as record_id, h.action, h.at, u.name as user_name,
               u.email as user_email, null as comment, h.before, h.after, p.site_id, f.id as form_id,
               f.period_type, e.key as element_key, p.year, p.period_unit
          from activity_history h
          join activity_places p on p.organization_id = h.organization_id and p.activity_id = h.activity_id
          join form_sites fs on fs.organization_id = p.organization_id and fs.id = p.form_site_id
          join forms f on f.organization_id = p.organization_id and f.id = fs.form_id
          join form_elements e on e.organization_id = p.organization_id and e.id = p.element_id
          left join users u on u.id = h.user_id
         where h.organization_id = ${ctx.organizationId} and ${commonFilters(ctx, 'p')}
           and h.at <= ${ctx.asOf} ${tail}`;
    },
  };
}

export function changeCells(r: ChangeRecord, ctx: ExportContext, kind: 'value' | 'activity'): Row {
  const site = ctx.sites.get(r.site_id);
  return [
    r.id,
    kind,
    r.record_id,
    r.action,
    r.at,
    r.user_name,
    r.user_email,
    r.comment,
    r.before,
    r.after,
    r.site_id,
    site?.code ?? null,
    site?.name ?? null,
    site?.path ?? null,
    r.form_id,
    r.element_key,
    r.year,
    r.period_unit,
    periodText(r.year, r.period_type, r.period_unit),
  ];
}
