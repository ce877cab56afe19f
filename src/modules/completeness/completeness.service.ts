import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { forbidden, invalidField, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { pageOf, paginationOf } from '../../http/paging.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, siteScope } from '../access/index.ts';
import { forms } from '../forms/index.ts';
import { jobs } from '../jobs/index.ts';
import { sites } from '../sites/index.ts';
import { completenessSource, keptTotals } from './completeness.kept.ts';
import { reminderMail } from './completeness.mail.ts';
import { dueAt, LAST_PERIOD } from './completeness.periods.ts';
import {
  type CellRow,
  type CompletenessScope,
  completenessRepository as repo,
} from './completeness.repository.ts';
import type {
  CompletenessQuery,
  CompletenessReport,
  RemindersBody,
  RemindersResult,
} from './completeness.schemas.ts';

const byName = (a: CellRow, b: CellRow) =>
  a.site_name.toLowerCase() < b.site_name.toLowerCase()
    ? -1
    : a.site_name.toLowerCase() > b.site_name.toLowerCase()
      ? 1
      : 0;

/** Reminders of one period go to a person at most once in this window. */
export const REMINDER_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Reminders (distinct form periods) one person may get in that window, from all managers. */
export const MAX_REMINDERS_PER_DAY = 5;

/** The items of a list parameter sent comma-separated, repeated, or both; null when absent. */
function listItems(values: (string | number)[] | undefined, name: string): string[] | null {
  if (values === undefined) return null;
  const items = values.flatMap((v) => String(v).split(',')).map((v) => v.trim());
  if (items.some((v) => v === '')) throw invalidField(name, `${name} has an empty item`);
  if (items.length === 0) throw invalidField(name, `${name} names nothing`);
  return [...new Set(items)];
}

type FormRow = NonNullable<Awaited<ReturnType<typeof forms.find>>>;
type ElementRow = Awaited<ReturnType<typeof forms.elements>>[number];

/** The expected elements of a form: its required ones, or every element when none is required. */
function expectedElements(elements: ElementRow[]): ElementRow[] {
  const required = elements.filter((e) => e.required);
  return required.length > 0 ? required : elements;
}

/** Checks the sites a request names: ids of the organization (400) the caller can read (403). */
async function checkSites(tx: Tx, caller: Caller, siteIds: string[] | null, field: string) {
  if (!siteIds) return null;
  const ids = siteIds.map((s) => s.toLowerCase());
  const malformed = ids.find((id) => !isUuid(id));
  if (malformed) throw invalidField(field, `${field}: "${malformed}" is not a site id (UUID)`);
  const known = await sites.existing(tx, caller.organizationId, ids);
  const unknown = ids.find((id) => !known.has(id));
  if (unknown) throw invalidField(field, `${field}: ${unknown} is not a site of this organization`);
  const scope = await siteScope(tx, caller);
  const hidden = ids.find((id) => !policy.canReadSite(scope, id));
  if (hidden) throw forbidden(`You cannot read the data of site ${hidden}`);
  return ids;
}

async function scopeOf(
  tx: Tx,
  caller: Caller,
  form: FormRow,
  expected: ElementRow[],
  input: { year: number; periodUnits: number[]; siteIds: string[] | null; now: Date },
): Promise<CompletenessScope> {
  return {
    formId: form.id,
    year: input.year,
    periods: input.periodUnits.map((periodUnit) => ({
      periodUnit,
      dueAt: dueAt(input.year, form.period_type, periodUnit, form.due_days),
    })),
    plainElementIds: expected.filter((e) => e.type !== 'ACTIVITY').map((e) => e.id),
    activityElementIds: expected.filter((e) => e.type === 'ACTIVITY').map((e) => e.id),
    siteIds: input.siteIds,
    scope: await siteScope(tx, caller),
    now: input.now,
  };
}

const rate = (part: number, whole: number) =>
  whole === 0 ? null : Math.round((part / whole) * 10_000) / 100;

function rates(expectedReports: number, actualReports: number, onTimeReports: number) {
  return {
    expectedReports,
    actualReports,
    onTimeReports,
    rate: rate(actualReports, expectedReports),
    onTimeRate: rate(onTimeReports, expectedReports),
  };
}

const missingKeys = (expected: ElementRow[], cell: CellRow) => {
  const reported = new Set(cell.reported_element_ids);
  return expected.filter((e) => !reported.has(e.id));
};

/**
 * Reporting completeness of a form's year: per active site (one page, by name) and period what
 * is expected, reported and missing, its status and due date, with DHIS2-style totals per site
 * and for the caller's whole scope. Five queries whatever the size: form, elements, scope, one
 * page of cells, the totals.
 */
export async function getCompleteness(
  tx: Tx,
  caller: Caller,
  query: CompletenessQuery,
  now: Date,
): Promise<CompletenessReport> {
  const org = caller.organizationId;
  const form = isUuid(query.formId) ? await forms.find(tx, org, query.formId) : undefined;
  if (!form) throw notFound('Form');
  const last = LAST_PERIOD[form.period_type];
  const periodUnits =
    (listItems(query.periodUnits, 'periodUnits') ?? null)?.map((v) => {
      const n = /^\d{1,2}$/.test(v) ? Number(v) : Number.NaN;
      if (!(n >= 1 && n <= last))
        throw invalidField('periodUnits', `periodUnits: "${v}" is not a period 1..${last}`);
      return n;
    }) ?? Array.from({ length: last }, (_, i) => i + 1);
  periodUnits.sort((a, b) => a - b);
  const siteIds = await checkSites(tx, caller, listItems(query.siteIds, 'siteIds'), 'siteIds');
  const expected = expectedElements(await forms.elements(tx, org, [form.id]));
  const q = await scopeOf(tx, caller, form, expected, { year: query.year, periodUnits, siteIds, now });
  const page = pageOf(query);
  const cells = await repo.page(tx, org, q, page);
  const totals = completenessSource.enabled ? await keptTotals(tx, org, q) : await repo.totals(tx, org, q);

  const items: CompletenessReport['items'] = [];
  for (const cell of cells) {
    let site = items[items.length - 1];
    if (!site || site.siteId !== cell.site_id) {
      site = { siteId: cell.site_id, siteName: cell.site_name, ...rates(0, 0, 0), periods: [] };
      items.push(site);
    }
    site.periods.push({
      periodUnit: cell.period_unit,
      expected: expected.length,
      reported: cell.reported,
      missing: missingKeys(expected, cell).map((e) => e.key),
      status: cell.status,
      lastReportedAt: cell.last_reported_at ? iso(cell.last_reported_at) : null,
      dueAt: cell.due_at ? iso(cell.due_at) : null,
      onTime: cell.on_time,
      overdue: cell.overdue,
      locked: cell.locked,
    });
  }
  for (const site of items) {
    const actual = site.periods.filter((p) => p.status === 'COMPLETE' || p.status === 'NO_ACTIVITY').length;
    Object.assign(site, rates(site.periods.length, actual, site.periods.filter((p) => p.onTime).length));
  }
  return {
    formId: form.id,
    year: query.year,
    periodType: form.period_type,
    dueDays: form.due_days,
    expectedElements: expected.map((e) => e.key),
    items,
    totals: {
      sites: totals.sites,
      ...rates(totals.expected_reports, totals.actual_reports, totals.on_time_reports),
      complete: totals.complete,
      partial: totals.partial,
      missing: totals.missing,
      noActivity: totals.no_activity,
      overdue: totals.overdue,
    },
    pagination: paginationOf(page, items.length, totals.sites),
  };
}

/**
 * Reminds the collectors of the sites that are MISSING or PARTIAL for one period (of the caller's
 * scope, or of `siteIds`): one e-mail per person listing each of their sites and what it misses.
 * Someone reminded of the same period, or of MAX_REMINDERS_PER_DAY periods, in the last 24 hours
 * is skipped (atomically: see `lockRecipients`). The reminders are logged and the e-mails queued
 * as jobs in the same transaction (sent once it commits, retried with back-off: decision 232).
 */
export async function sendReminders(
  tx: Tx,
  caller: Caller,
  body: RemindersBody,
  deps: { now: Date; publicUrl?: string },
): Promise<RemindersResult> {
  const org = caller.organizationId;
  const form = await forms.find(tx, org, body.formId);
  if (!form) throw invalidField('formId', 'formId is not a form of this organization');
  const last = LAST_PERIOD[form.period_type];
  if (body.periodUnit > last) throw invalidField('periodUnit', `periodUnit must be 1..${last} for this form`);
  const siteIds = await checkSites(tx, caller, body.siteIds ?? null, 'siteIds');
  const expected = expectedElements(await forms.elements(tx, org, [form.id]));
  const q = await scopeOf(tx, caller, form, expected, {
    year: body.year,
    periodUnits: [body.periodUnit],
    siteIds,
    now: deps.now,
  });
  const open = (await repo.cells(tx, org, q)).filter((c) => c.status === 'MISSING' || c.status === 'PARTIAL');
  const collectors = await repo.collectors(
    tx,
    org,
    open.map((c) => c.site_id),
  );
  const since = new Date(deps.now.getTime() - REMINDER_WINDOW_MS);
  // Serialized per person, then read: calls running at once see each other's log.
  const recipientIds = collectors.map((c) => c.user_id);
  await repo.lockRecipients(tx, org, recipientIds);
  const already = await repo.remindedSince(tx, org, form.id, body.year, body.periodUnit, since);
  // A person reminded of MAX_REMINDERS_PER_DAY form periods in the last 24 hours gets no more.
  const counts = await repo.reminderCountsSince(tx, org, recipientIds, since);
  for (const [userId, n] of counts) if (n >= MAX_REMINDERS_PER_DAY) already.add(userId);
  const bySite = new Map(open.map((c) => [c.site_id, c]));
  const people = new Map<string, { email: string; name: string; locale: string | null; sites: CellRow[] }>();
  for (const c of collectors) {
    if (already.has(c.user_id)) continue;
    const person = people.get(c.user_id) ?? { email: c.email, name: c.name, locale: c.locale, sites: [] };
    person.sites.push(bySite.get(c.site_id)!);
    people.set(c.user_id, person);
  }
  await repo.logReminders(
    tx,
    org,
    [...people].flatMap(([userId, p]) =>
      p.sites.map((s) => ({
        formId: form.id,
        year: body.year,
        periodUnit: body.periodUnit,
        siteId: s.site_id,
        userId,
      })),
    ),
    caller.userId,
    deps.now,
  );
  const skipped = new Set(collectors.filter((c) => already.has(c.user_id)).map((c) => c.user_id));
  await jobs.enqueueMails(
    tx,
    org,
    [...people.values()].map((person) =>
      reminderMail({
        to: person.email,
        name: person.name,
        locale: person.locale,
        senderName: caller.name,
        formName: form.name,
        year: body.year,
        periodType: form.period_type,
        periodUnit: body.periodUnit,
        dueAt: q.periods[0]!.dueAt,
        ...(deps.publicUrl ? { link: reminderLink(deps.publicUrl, form.id, body, person.sites) } : {}),
        sites: person.sites.sort(byName).map((s) => ({
          name: s.site_name,
          missing: missingKeys(expected, s).map((e) => e.label),
        })),
      }),
    ),
    deps.now,
  );
  return { reminded: people.size, alreadyReminded: skipped.size, sites: open.length };
}

/**
 * Where a reminder leads in the web app: the period's entry screen when the person misses one
 * site, else their reporting of the form and year (every site listed there).
 */
function reminderLink(
  publicUrl: string,
  formId: string,
  body: { year: number; periodUnit: number },
  sites: { site_id: string }[],
): string {
  const base = `${publicUrl.replace(/\/+$/, '')}/app`;
  if (sites.length === 1)
    return `${base}/enter/${formId}/${sites[0]!.site_id}/${body.year}/${body.periodUnit}`;
  return `${base}?form=${formId}&year=${body.year}`;
}
