import { type RawBuilder, sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { PeriodType } from '../../db/schema/index.ts';
import type { ExportContext } from './exports.repository.ts';

import { commonFilters } from './exports.repository.ts';

/** A value as its page statement reads it; `review` and `media` are filled per page (`complete`). */
export interface ValueRecord {
  id: string;
  site_id: string;
  form_id: string;
  element_id: string;
  year: number;
  period_unit: number;
  timestamp: Date | null;
  value: unknown;
  original_value: unknown;
  selected_unit_id: string | null;
  status: string;
  user_id: string;
  /** ISO 8601 text in UTC, as `Date#toISOString` writes it (formatted by the statement: cheaper). */
  recorded_at: string;
  submission_id: string;
  run_id: string | null;
  run_rows: { sheet: string; rowIndex: number }[] | null;
  review?: { at: Date; comment: string | null; userId: string };
  media?: { id: string; fileName: string };
}

/** A live lock of the year as the values export reads it. */
export interface LockInfo {
  id: string;
  formId: string;
  periodUnit: number | null;
  siteId: string | null;
  createdAt: Date;
  userName: string | null;
}

/** The organization's live forms. */
export async function liveForms(
  tx: Tx,
  organizationId: string,
): Promise<{ id: string; name: string; period_type: PeriodType }[]> {
  const forms = await sql<{ id: string; name: string; period_type: PeriodType }>`
      select id, name, period_type from forms where organization_id = ${organizationId} and deleted_at is null`.execute(
    tx,
  );
  return forms.rows;
}

/** The organization's live form elements. */
export async function liveElements(
  tx: Tx,
  organizationId: string,
): Promise<{ id: string; key: string; label: string; type: string; unit_id: string | null }[]> {
  const elements = await sql<{
    id: string;
    key: string;
    label: string;
    type: string;
    unit_id: string | null;
  }>`
      select id, key, label, type, unit_id from form_elements
       where organization_id = ${organizationId} and deleted_at is null`.execute(tx);
  return elements.rows;
}

/** Every unit's symbol. */
export async function allUnits(tx: Tx): Promise<{ id: string; symbol: string }[]> {
  const units = await sql<{ id: string; symbol: string }>`select id, symbol from units`.execute(tx);
  return units.rows;
}

/** The live locks of the year, in creation order, with who locked. */
export async function liveLocksOfYear(tx: Tx, organizationId: string, year: number): Promise<LockInfo[]> {
  const locks = await sql<LockInfo>`
      select l.id, l.form_id as "formId", l.period_unit as "periodUnit", l.site_id as "siteId",
             l.created_at as "createdAt", coalesce(nullif(u.name, ''), u.email) as "userName"
        from form_locks l left join users u on u.id = l.created_by
       where l.organization_id = ${organizationId} and l.year = ${year} and l.unlocked_at is null
       order by l.created_at, l.id`.execute(tx);
  return locks.rows;
}

/**
 * The year's live values on active form-sites in id order, with the import that wrote them: the
 * whole of them (`after` and `limit` null) or the page after `after`.
 */
export function valuesStatement(
  ctx: ExportContext,
  after: string | null,
  limit: number | null,
): RawBuilder<ValueRecord> {
  const extra = [];
  if (ctx.statuses) extra.push(sql`and v.status = any(${ctx.statuses}::text[])`);
  if (ctx.updatedSince)
    extra.push(sql`and (v.recorded_at >= ${ctx.updatedSince} or (v.status <> 'COMPLETED' and (
      select h.at from form_value_history h
       where h.organization_id = v.organization_id and h.value_id = v.id and h.action = 'REVIEW'
       order by h.seq desc limit 1) >= ${ctx.updatedSince}))`);
  if (after !== null) extra.push(sql`and v.id > ${after}::uuid`);
  return sql<ValueRecord>`
    select v.id, v.site_id, fs.form_id, v.element_id, v.year, v.period_unit, v."timestamp", v.value,
           v.original_value, v.selected_unit_id, v.status, v.user_id,
           to_char(v.recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as recorded_at,
           v.form_submission_id as submission_id, v.import_run_id as run_id, v.import_rows as run_rows
      from form_element_submissions v
      join form_submissions s on s.organization_id = v.organization_id and s.id = v.form_submission_id
      join form_sites fs on fs.organization_id = v.organization_id and fs.id = s.form_site_id
     where ${commonFilters(ctx, 'v')} and v.deleted_at is null and v.created_at <= ${ctx.asOf}
       and fs.active and s.organization_id = ${ctx.organizationId}
       ${sql.join(extra, sql` `)}
     order by v.id
     ${limit === null ? sql`` : sql`limit ${limit}`}`;
}

/** The last review of each of the values `valueIds`. */
export async function lastReviews(
  tx: Tx,
  organizationId: string,
  valueIds: readonly string[],
): Promise<{ value_id: string; at: Date; comment: string | null; user_id: string }[]> {
  const reviews = await sql<{ value_id: string; at: Date; comment: string | null; user_id: string }>`
    select distinct on (h.value_id) h.value_id, h.at, h.comment, h.user_id
      from form_value_history h
     where h.organization_id = ${organizationId} and h.value_id = any(${valueIds}::uuid[]) and h.action = 'REVIEW'
     order by h.value_id, h.seq desc`.execute(tx);
  return reviews.rows;
}

/** The file names of the media `ids` of the organization. */
export async function mediaFileNames(
  tx: Tx,
  organizationId: string,
  ids: readonly string[],
): Promise<{ id: string; file_name: string }[]> {
  const media = await sql<{ id: string; file_name: string }>`
    select id, file_name from media where organization_id = ${organizationId} and id = any(${ids}::uuid[])`.execute(
    tx,
  );
  return media.rows;
}

/** The name and email of the users `ids`. */
export async function usersByIds(
  tx: Tx,
  ids: readonly string[],
): Promise<{ id: string; name: string; email: string }[]> {
  const people = await sql<{ id: string; name: string; email: string }>`
    select id, name, email from users where id = any(${ids}::uuid[])`.execute(tx);
  return people.rows;
}
