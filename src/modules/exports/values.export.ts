import type { Tx } from '../../db/client.ts';
import type { PeriodType } from '../../db/schema/index.ts';
import { groupBy } from '../../lib/group-by.ts';
import type { ExportRow } from './exports.columns.ts';
import { periodText } from './exports.filters.ts';
import type { OrderedQuery } from './exports.reader.ts';
import type { ExportContext } from './exports.repository.ts';
import {
  allUnits,
  type LockInfo,
  lastReviews,
  liveElements,
  liveForms,
  liveLocksOfYear,
  mediaFileNames,
  usersByIds,
  type ValueRecord,
  valuesStatement,
} from './values.repository.ts';

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
  const forms = await liveForms(tx, org);
  const elements = await liveElements(tx, org);
  const units = await allUnits(tx);
  const locks = await liveLocksOfYear(tx, org, ctx.year);
  const unitSymbols = new Map(units.map((u) => [u.id, u.symbol]));
  return {
    forms: new Map(forms.map((f) => [f.id, { name: f.name, periodType: f.period_type }])),
    elements: new Map(
      elements.map((e) => [
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
    locks,
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
    statement: (after, limit) => valuesStatement(ctx, after, limit),
    async complete(tx, rows) {
      const reviewed = rows.filter((r) => r.status !== 'COMPLETED').map((r) => r.id);
      // The media id as the statement compared it before: the value's text, lower-cased.
      const mediaIdOf = (r: ValueRecord) =>
        typeof r.value === 'string' && lookups.elements.get(r.element_id)?.type === 'FILE'
          ? r.value.toLowerCase()
          : undefined;
      const files = groupBy(
        rows.flatMap((r) => {
          const id = mediaIdOf(r);
          return id !== undefined && UUID.test(id) ? [{ id, r }] : [];
        }),
        (f) => f.id,
        (f) => f.r,
      );
      if (reviewed.length > 0) {
        const reviews = await lastReviews(tx, org, reviewed);
        const byValue = new Map(reviews.map((h) => [h.value_id, h]));
        for (const r of rows) {
          const h = byValue.get(r.id);
          if (h && r.status !== 'COMPLETED') r.review = { at: h.at, comment: h.comment, userId: h.user_id };
        }
      }
      if (files.size > 0) {
        const media = await mediaFileNames(tx, org, [...files.keys()]);
        for (const m of media)
          for (const r of files.get(m.id) ?? []) r.media = { id: m.id, fileName: m.file_name };
      }
      const unknown = new Set<string>();
      for (const r of rows) {
        if (!lookups.users.has(r.user_id)) unknown.add(r.user_id);
        if (r.review && !lookups.users.has(r.review.userId)) unknown.add(r.review.userId);
      }
      if (unknown.size > 0) {
        const people = await usersByIds(tx, [...unknown]);
        for (const id of unknown) lookups.users.set(id, null);
        for (const u of people) lookups.users.set(u.id, { name: u.name, email: u.email });
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
export function valueCells(r: ValueRecord, ctx: ExportContext, lookups: ValueLookups): ExportRow | null {
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
