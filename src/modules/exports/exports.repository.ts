import { type QueryResult, type RawBuilder, sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { ActivityInputDefinition, PeriodType, ValueStatus } from '../../db/schema/index.ts';
import type { UsedCoefficient } from '../activities/index.ts';

/** A site as exports name it: its code, its name and its path of ancestors. */
export interface ExportSiteInfo {
  code: string | null;
  name: string;
  path: string;
}

/** What an export reads, checked: every filter in the terms the statements use. */
export interface ExportContext {
  organizationId: string;
  /** The database's time when the export started (PGlite pages leave out rows created after it). */
  asOf: Date;
  year: number;
  formId: string | null;
  /** The sites to read (named ones with their descendants, within the caller's scope); null: all. */
  siteIds: string[] | null;
  periodUnits: number[] | null;
  statuses: ValueStatus[] | null;
  updatedSince: Date | null;
  key: string | null;
  /** Every site of the organization (a path names ancestors), by id. */
  sites: Map<string, ExportSiteInfo>;
}

/** The media of an audit pack's evidence (`ids`), by id, in the caller's organization. */
export function evidenceMedia(tx: Tx, organizationId: string, ids: readonly string[]) {
  return tx
    .selectFrom('media')
    .select(['id', 'key', 'file_name'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .orderBy('id')
    .execute();
}

/** Declares the cursor a streamed export reads on PostgreSQL, for `statement` (in `tx`). */
export async function declareExportCursor(tx: Tx, statement: RawBuilder<unknown>): Promise<void> {
  await sql`declare sdcs_export no scroll cursor for ${statement}`.execute(tx);
}

/** The next `size` rows of the export's cursor (not awaited here: the caller decides when). */
export function fetchExportCursor<R>(tx: Tx, size: number): Promise<QueryResult<R>> {
  return sql.raw<R>(`fetch forward ${size} from sdcs_export`).execute(tx);
}

/** Closes the export's cursor. */
export async function closeExportCursor(tx: Tx): Promise<void> {
  await sql`close sdcs_export`.execute(tx);
}

/** The database's time (an export's start). */
export async function databaseNow(tx: Tx): Promise<Date> {
  const head = await sql<{ now: Date }>`select now() as now`.execute(tx);
  return head.rows[0]!.now;
}

/** Every site of the organization, with its parent (an export names a site by its path). */
export function organizationSites(tx: Tx, organizationId: string) {
  return tx
    .selectFrom('sites')
    .select(['id', 'parent_id', 'name', 'code'])
    .where('organization_id', '=', organizationId)
    .execute();
}

/** The form `formId` of the organization if it exists and is not deleted. */
export function liveForm(tx: Tx, organizationId: string, formId: string) {
  return tx
    .selectFrom('forms')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', '=', formId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The year's locks (live and lifted), of form `formId` or of every form, with who and when. */
export async function yearLockRows(
  tx: Tx,
  organizationId: string,
  year: number,
  formId: string | null,
): Promise<Record<string, unknown>[]> {
  const rows = await sql<Record<string, unknown>>`
    select l.id, l.form_id, f.name as form_name, l.year, l.period_unit, l.site_id, s.name as site_name,
           coalesce(nullif(cu.name, ''), cu.email) as locked_by, l.created_at,
           coalesce(nullif(uu.name, ''), uu.email) as unlocked_by, l.unlocked_at
      from form_locks l
      join forms f on f.organization_id = l.organization_id and f.id = l.form_id
      left join sites s on s.organization_id = l.organization_id and s.id = l.site_id
      left join users cu on cu.id = l.created_by
      left join users uu on uu.id = l.unlocked_by
     where l.organization_id = ${organizationId} and l.year = ${year}
       ${formId ? sql`and l.form_id = ${formId}` : sql``}
     order by l.created_at, l.id`.execute(tx);
  return rows.rows;
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

/** A change of a value or of an activity, as the history export reads it. */
export interface ChangeRecord {
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
 * The changes of values, or of activities, of the year made up to the export's start, in `seq`
 * order: the whole of them (`after` and `limit` null) or the page after `after`.
 */
export function changeHistoryStatement(
  ctx: ExportContext,
  kind: 'value' | 'activity',
  after: number | null,
  limit: number | null,
): RawBuilder<ChangeRecord> {
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
}

/** The datasets the organization can read (its own and the common ones): id and name. */
export function readableDatasets(tx: Tx, organizationId: string) {
  return tx
    .selectFrom('datasets')
    .select(['id', 'name'])
    .where((eb) => eb.or([eb('organization_id', '=', organizationId), eb('is_common', '=', true)]))
    .execute();
}

/** An activity as the activities export reads it. */
export interface ActivityRecord {
  id: string;
  value_id: string;
  position: number;
  site_id: string;
  form_id: string;
  form_name: string;
  period_type: PeriodType;
  element_key: string;
  year: number;
  period_unit: number;
  definition_id: string;
  definition_key: string;
  input: Record<string, unknown>;
  value: number;
  unit: string | null;
  metadata: unknown;
  calc_code_sha256: string | null;
  coefficients: UsedCoefficient[] | null;
  user_name: string | null;
  user_email: string | null;
  updated_at: Date;
}

/** The filters of the activities an export reads (tables as `FROM` names them). */
function activityFilters(ctx: ExportContext) {
  const extra = [sql`a.created_at <= ${ctx.asOf}`];
  if (ctx.key) extra.push(sql`e.key = ${ctx.key}`);
  if (ctx.statuses) extra.push(sql`v.status = any(${ctx.statuses}::text[])`);
  if (ctx.updatedSince) extra.push(sql`a.updated_at >= ${ctx.updatedSince}`);
  return sql`${commonFilters(ctx, 'a')} and ${sql.join(extra, sql` and `)}
    and v.deleted_at is null and fs.active and f.deleted_at is null and e.deleted_at is null`;
}

/** The activities with their value, form-site, form and element. */
const FROM = sql`
  from activities a
  join form_element_submissions v on v.organization_id = a.organization_id and v.id = a.form_element_submission_id
  join form_sites fs on fs.organization_id = a.organization_id and fs.id = a.form_site_id
  join forms f on f.organization_id = a.organization_id and f.id = fs.form_id
  join form_elements e on e.organization_id = a.organization_id and e.id = a.element_id`;

/** The definitions (key and inputs) of the activities an export reads, by key. */
export async function exportedActivityDefinitions(
  tx: Tx,
  ctx: ExportContext,
): Promise<{ key: string; inputs: ActivityInputDefinition[] }[]> {
  const rows = await sql<{ key: string; inputs: ActivityInputDefinition[] }>`
    select d.key, d.inputs from activity_definitions d
     where d.id in (select distinct a.activity_definition_id ${FROM} where ${activityFilters(ctx)})
     order by d.key, d.id`.execute(tx);
  return rows.rows;
}

/**
 * The year's activities (of live values on active form-sites) in id order: the whole of them
 * (`after` and `limit` null) or the page after `after`.
 */
export function activitiesStatement(
  ctx: ExportContext,
  after: string | null,
  limit: number | null,
): RawBuilder<ActivityRecord> {
  return sql<ActivityRecord>`
    select a.id, a.form_element_submission_id as value_id, a.position, a.site_id, f.id as form_id,
           f.name as form_name, f.period_type, e.key as element_key, a.year, a.period_unit,
           d.id as definition_id, d.key as definition_key, a.input, a.value, eu.symbol as unit,
           a.metadata, a.calc_code_sha256, a.coefficients, u.name as user_name, u.email as user_email, a.updated_at
      ${FROM}
      join activity_definitions d on d.id = a.activity_definition_id
      left join units eu on eu.id = coalesce(d.unit_id, e.unit_id)
      left join users u on u.id = a.user_id
     where ${activityFilters(ctx)} ${after === null ? sql`` : sql`and a.id > ${after}::uuid`}
     order by a.id
     ${limit === null ? sql`` : sql`limit ${limit}`}`;
}
