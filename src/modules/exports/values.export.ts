import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { PeriodType } from '../../db/schema/index.ts';
import type { Row } from './exports.columns.ts';
import { type ExportContext, periodText } from './exports.filters.ts';
import type { OrderedQuery } from './exports.reader.ts';
import { commonFilters } from './exports.repository.ts';

/** A value as its page statement reads it; `review` and `media` are filled per page (`complete`). */
interface ValueRecord {
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

interface FormInfo {
  name: string;
  periodType: PeriodType;
}

interface ElementInfo {
  key: string;
  label: string;
  type: string;
  unitSymbol: string | null;
}

interface LockInfo {
  id: string;
  formId: string;
  periodUnit: number | null;
  siteId: string | null;
  createdAt: Date;
  userName: string | null;
}

interface Person {
  name: string;
  email: string;
}

/**
 * What the value rows refer to, read once per export rather than joined to every row: the
 * organization's live forms and elements, the units, the live locks of the year (in the order
 * the first covering one is chosen), and the people met so far (filled page by page).
 */
export interface ValueLookups {
  forms: Map<string, FormInfo>;
  elements: Map<string, ElementInfo>;
  units: Map<string, string>;
  locks: LockInfo[];
  users: Map<string, Person | null>;
}

/**
 * Reads the lookups of a values export in the request's first transaction (as of the export's
 * start: a form, element or lock changed while the export runs is shown as it was then).
 */
export async function valueLookups(tx: Tx, ctx: ExportContext): Promise<ValueLookups> {
  const org = ctx.organizationId;
  const forms = await sql<{ id: string; name: string; period_type: PeriodType }>`
      select id, name, period_type from forms where organization_id = ${org} and deleted_at is null`.execute(
    tx,
  );
  const elements = await sql<{
    id: string;
    key: string;
    label: string;
    type: string;
    unit_id: string | null;
  }>`
      select id, key, label, type, unit_id from form_elements
       where organization_id = ${org} and deleted_at is null`.execute(tx);
  const units = await sql<{ id: string; symbol: string }>`select id, symbol from units`.execute(tx);
  const locks = await sql<LockInfo>`
      select l.id, l.form_id as "formId", l.period_unit as "periodUnit", l.site_id as "siteId",
             l.created_at as "createdAt", coalesce(nullif(u.name, ''), u.email) as "userName"
        from form_locks l left join users u on u.id = l.created_by
       where l.organization_id = ${org} and l.year = ${ctx.year} and l.unlocked_at is null
       order by l.created_at, l.id`.execute(tx);
  const unitSymbols = new Map(units.rows.map((u) => [u.id, u.symbol]));
  return {
    forms: new Map(forms.rows.map((f) => [f.id, { name: f.name, periodType: f.period_type }])),
    elements: new Map(
      elements.rows.map((e) => [
        e.id,
        {
          key: e.key,
          label: e.label,
          type: e.type,
          unitSymbol: e.unit_id === null ? null : (unitSymbols.get(e.unit_id) ?? null),
        },
      ]),
    ),
    units: unitSymbols,
    locks: locks.rows,
    users: new Map(),
  };
}

/**
 * Every live value of the year on active form-sites, in id order, with the import that wrote it;
 * per page, the last review of reviewed values, the evidence of FILE values and the people not
 * met yet are read in one statement each. Values of deleted forms or elements are left out by
 * `valueCells` (the lookups hold only live ones).
 */
export function valuesQuery(ctx: ExportContext, lookups: ValueLookups): OrderedQuery<ValueRecord, string> {
  const org = ctx.organizationId;
  return {
    keyOf: (row) => row.id,
    statement(after, limit) {
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
               v.form_submission_id as submission_id, vis.run_id, vis.rows as run_rows
          from form_element_submissions v
          join form_submissions s on s.organization_id = v.organization_id and s.id = v.form_submission_id
          join form_sites fs on fs.organization_id = v.organization_id and fs.id = s.form_site_id
          left join value_import_sources vis
            on vis.organization_id = v.organization_id and vis.value_id = v.id and vis.recorded_at = v.recorded_at
         where ${commonFilters(ctx, 'v')} and v.deleted_at is null and v.created_at <= ${ctx.asOf}
           and fs.active and s.organization_id = ${org}
           ${sql.join(extra, sql` `)}
         order by v.id
         ${limit === null ? sql`` : sql`limit ${limit}`}`;
    },
    async complete(tx, rows) {
      const reviewed: string[] = [];
      const files = new Map<string, ValueRecord[]>();
      for (const r of rows) {
        if (r.status !== 'COMPLETED') reviewed.push(r.id);
        if (typeof r.value === 'string' && lookups.elements.get(r.element_id)?.type === 'FILE') {
          // The media id as the statement compared it before: the value's text, lower-cased.
          const id = r.value.toLowerCase();
          if (UUID.test(id)) files.set(id, [...(files.get(id) ?? []), r]);
        }
      }
      if (reviewed.length > 0) {
        const reviews = await sql<{ value_id: string; at: Date; comment: string | null; user_id: string }>`
          select distinct on (h.value_id) h.value_id, h.at, h.comment, h.user_id
            from form_value_history h
           where h.organization_id = ${org} and h.value_id = any(${reviewed}::uuid[]) and h.action = 'REVIEW'
           order by h.value_id, h.seq desc`.execute(tx);
        const byValue = new Map(reviews.rows.map((h) => [h.value_id, h]));
        for (const r of rows) {
          const h = byValue.get(r.id);
          if (h && r.status !== 'COMPLETED') r.review = { at: h.at, comment: h.comment, userId: h.user_id };
        }
      }
      if (files.size > 0) {
        const media = await sql<{ id: string; file_name: string }>`
          select id, file_name from media where organization_id = ${org} and id = any(${[...files.keys()]}::uuid[])`.execute(
          tx,
        );
        for (const m of media.rows)
          for (const r of files.get(m.id) ?? []) r.media = { id: m.id, fileName: m.file_name };
      }
      const unknown = new Set<string>();
      for (const r of rows) {
        if (!lookups.users.has(r.user_id)) unknown.add(r.user_id);
        if (r.review && !lookups.users.has(r.review.userId)) unknown.add(r.review.userId);
      }
      if (unknown.size > 0) {
        const people = await sql<{ id: string; name: string; email: string }>`
          select id, name, email from users where id = any(${[...unknown]}::uuid[])`.execute(tx);
        for (const id of unknown) lookups.users.set(id, null);
        for (const u of people.rows) lookups.users.set(u.id, { name: u.name, email: u.email });
      }
    },
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The first live lock (by creation) covering a value's form, period and site, if any. */
function lockOf(locks: LockInfo[], r: ValueRecord): LockInfo | null {
  for (const l of locks)
    if (
      l.formId === r.form_id &&
      (l.periodUnit === null || l.periodUnit === r.period_unit) &&
      (l.siteId === null || l.siteId === r.site_id)
    )
      return l;
  return null;
}

/** A value record as the cells of VALUE_COLUMNS; null for a value of a deleted form or element. */
export function valueCells(r: ValueRecord, ctx: ExportContext, lookups: ValueLookups): Row | null {
  const form = lookups.forms.get(r.form_id);
  const element = lookups.elements.get(r.element_id);
  if (!form || !element) return null;
  const site = ctx.sites.get(r.site_id);
  const entered = lookups.users.get(r.user_id) ?? null;
  const reviewer = r.review ? (lookups.users.get(r.review.userId) ?? null) : null;
  const lock = lookups.locks.length > 0 ? lockOf(lookups.locks, r) : null;
  return [
    r.id,
    r.site_id,
    site?.code ?? null,
    site?.name ?? null,
    site?.path ?? null,
    r.form_id,
    form.name,
    r.element_id,
    element.key,
    element.label,
    element.type,
    r.year,
    r.period_unit,
    periodText(r.year, form.periodType, r.period_unit),
    r.timestamp,
    r.value,
    element.unitSymbol,
    r.original_value,
    r.selected_unit_id === null ? null : (lookups.units.get(r.selected_unit_id) ?? null),
    r.status,
    entered?.name ?? null,
    entered?.email ?? null,
    r.recorded_at,
    reviewer?.name ?? null,
    reviewer?.email ?? null,
    r.review?.at ?? null,
    r.review?.comment ?? null,
    r.submission_id,
    r.run_id,
    r.run_rows ? r.run_rows.map((x) => `${x.sheet}:${x.rowIndex}`).join(';') : null,
    r.media?.id ?? null,
    r.media?.fileName ?? null,
    lock?.id ?? null,
    lock?.createdAt ?? null,
    lock?.userName ?? null,
  ];
}
