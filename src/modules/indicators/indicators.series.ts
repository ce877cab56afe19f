import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { invalidField } from '../../domain/errors.ts';
import { Evaluator } from './indicators.evaluator.ts';
import {
  aggregateOperands,
  perSiteOf,
  prepare,
  referencesAt,
  siteGroupAggregates,
  siteTrees,
  usesKeyedItems,
  wholeScopeOperands,
} from './indicators.operands.ts';
import { presentCurrentValue } from './indicators.present.ts';
import type { References } from './indicators.references.ts';
import type { CurrentValue } from './indicators.schemas.ts';
import type { Aggregate, Bucket, Scope } from './indicators.scope.ts';
import { itemsOfKeys, PER_SITE_REF, type SiteGroups } from './indicators.sites.ts';
import { indicatorValuesRepository as values } from './values.repository.ts';

export type SeriesGrouping = 'TOTAL' | 'MONTHLY' | 'QUARTERLY' | 'YEARLY';

export interface SeriesRequest {
  indicatorIds: string[];
  /** Each site with its descendants; by default every site the viewer sees. */
  siteIds?: string[];
  /** One result per (indicator, requested site) instead of one per indicator; needs siteIds. */
  bySite?: boolean;
  fromYear: number;
  toYear: number;
  /** YYYY-MM-DD: only values whose period starts on or after this day. */
  startDate?: string;
  /** YYYY-MM-DD: only values whose period starts on or before this day. */
  endDate?: string;
  /** By default the organization's defaultStatuses. */
  statuses?: Array<'COMPLETED' | 'APPROVED' | 'REJECTED'>;
  grouping: SeriesGrouping;
}

export interface SeriesResult {
  indicatorId: string;
  /** With bySite: the requested site (its descendants included). */
  siteId?: string;
  /** Over the whole scope (every period together). */
  total: CurrentValue;
  /** One per period of the grouping in range ('2026', '2026-Q1', '2026-03'); none for TOTAL. */
  points: Array<{ period: string; value: CurrentValue }>;
}

const MONTHS: Record<Bucket, number> = { YEARLY: 12, QUARTERLY: 3, MONTHLY: 1 };

/** A period bucket's label: 2026, 2026-Q1 or 2026-03. */
function label(bucket: Bucket, period: number): string {
  if (bucket === 'YEARLY') return String(period);
  if (bucket === 'QUARTERLY') return `${Math.floor(period / 4)}-Q${(period % 4) + 1}`;
  return `${Math.floor(period / 12)}-${String((period % 12) + 1).padStart(2, '0')}`;
}

/** A YYYY-MM-DD date as [year, month (1..12), day], or a 400 naming the field. */
function dateOf(field: string, text: string): [number, number, number] {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const date = match ? new Date(Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!)) : null;
  if (!match || !date || date.getUTCMonth() !== +match[2]! - 1 || date.getUTCDate() !== +match[3]!)
    throw invalidField(field, `${field} is not a date (YYYY-MM-DD)`);
  return [+match[1]!, +match[2]!, +match[3]!];
}

/**
 * The months (year × 12 + month − 1) whose first day is within [startDate, endDate], bounded by
 * the years; null when neither date is given.
 */
function monthsOf(req: SeriesRequest): { from: number; to: number } | null {
  let from = req.fromYear * 12;
  let to = req.toYear * 12 + 11;
  if (req.startDate !== undefined) {
    const [y, m, d] = dateOf('startDate', req.startDate);
    from = Math.max(from, y * 12 + m - 1 + (d === 1 ? 0 : 1));
  }
  if (req.endDate !== undefined) {
    const [y, m] = dateOf('endDate', req.endDate);
    to = Math.min(to, y * 12 + m - 1);
  }
  if (req.startDate !== undefined && req.endDate !== undefined && req.startDate > req.endDate)
    throw invalidField('endDate', 'endDate is before startDate');
  return req.startDate === undefined && req.endDate === undefined ? null : { from, to };
}

/** The buckets of the grouping that hold at least one month of [from, to], in order. */
function bucketsOf(bucket: Bucket, months: { from: number; to: number }): number[] {
  const size = MONTHS[bucket];
  const out: number[] = [];
  for (let p = Math.floor(months.from / size); p * size <= months.to; p++) out.push(p);
  return out;
}

/**
 * The (requested site, site of its tree) pairs of a bySite series. When each tree is its site's
 * whole subtree, each group's cover of the totals is that site alone (no cover worked out from
 * the pairs, which number as many as the sites below).
 */
function bySitePairs(
  trees: Map<string, string[]>,
  whole: boolean,
): {
  groupIds: string[];
  siteIds: string[];
  cover?: { siteIds: string[]; weights: number[]; groupIds: string[] };
} {
  const out = { groupIds: [] as string[], siteIds: [] as string[] };
  for (const [root, ids] of trees)
    for (const id of ids) {
      out.groupIds.push(root);
      out.siteIds.push(id);
    }
  if (!whole) return out;
  const roots = [...trees.keys()];
  return { ...out, cover: { siteIds: roots, weights: roots.map(() => 1), groupIds: roots } };
}

/**
 * Indicator values over a scope, in total and per period (year, quarter or month): the same
 * computation as current values (each operand aggregated over the scope — here also over each
 * period — then the formula), with every bucket aggregated by the same two SQL statements.
 *
 * A value belongs to the period its own period starts in: a quarterly form's Q2 value falls in
 * April when grouping by month, a yearly form's value in January or Q1. With startDate/endDate a
 * value counts when its period's first day is in that range; points are listed for every period
 * of the grouping that holds such a first day.
 */
export async function indicatorSeries(
  tx: Tx,
  viewer: Caller | { organizationId: string },
  req: SeriesRequest,
  _now: Date,
): Promise<SeriesResult[]> {
  const organizationId = viewer.organizationId;
  if (req.fromYear > req.toYear) throw invalidField('toYear', 'toYear is before fromYear');
  const months = monthsOf(req);
  if (req.bySite && !req.siteIds) throw invalidField('siteIds', 'bySite needs siteIds');
  const prepared = await prepare(tx, organizationId, req.indicatorIds, req.toYear);
  const sites = await siteTrees(tx, viewer, req.siteIds);
  const scope: Scope = {
    siteIds: sites.all,
    fromYear: req.fromYear,
    toYear: req.toYear,
    periodUnits: null,
    statuses: req.statuses ?? (await values.defaultStatuses(tx, organizationId)),
  };
  const bucket = req.grouping === 'TOTAL' ? null : req.grouping;
  const groups = req.bySite ? [...sites.trees.keys()] : [null];
  const rows = await aggregateOperands(
    tx,
    organizationId,
    wholeScopeOperands(prepared, req.indicatorIds),
    scope,
    {
      bucket,
      groups: req.bySite ? bySitePairs(sites.trees, sites.whole) : null,
      months,
    },
  );
  const perSite = await siteGroupAggregates(
    tx,
    organizationId,
    prepared,
    scope,
    req.bySite ? new Map([...sites.trees]) : new Map([[null, sites.all]]),
    req.toYear,
    { bucket, months },
  );
  const aggregates = new Map<string, Map<string, Aggregate>>();
  for (const row of rows) {
    const key = `${row.grp}|${row.period}`;
    if (!aggregates.has(key)) aggregates.set(key, new Map());
    aggregates.get(key)!.set(row.element_id, row);
  }

  // Coefficients named by key follow each period's year (the total: the last year's).
  const periods = bucket
    ? bucketsOf(bucket, months ?? { from: req.fromYear * 12, to: req.toYear * 12 + 11 })
    : [];
  const yearOf = (p: number) => Math.floor((p * (bucket ? MONTHS[bucket] : 12)) / 12);
  const refsByYear = new Map<number, References>([[req.toYear, prepared.refs]]);
  if (usesKeyedItems(prepared.needed)) {
    for (const year of new Set(periods.map(yearOf))) {
      if (!refsByYear.has(year))
        refsByYear.set(year, await referencesAt(tx, organizationId, prepared.needed, year));
    }
  }
  // The site-dependent coefficients of each period's year.
  const itemsByYear = new Map<number, SiteGroups['items']>();
  if (perSite) {
    itemsByYear.set(req.toYear, perSite.siteGroups.items);
    const keys = new Map<string, { datasetId: string; key: string }>();
    for (const group of perSite.siteGroups.groups)
      for (const [ref, key] of group.keys)
        if (key !== null && ref !== PER_SITE_REF) {
          const datasetId = ref.slice(0, ref.indexOf(':'));
          keys.set(`${datasetId}:${key}`, { datasetId, key });
        }
    for (const year of new Set(periods.map(yearOf)))
      if (!itemsByYear.has(year)) itemsByYear.set(year, await itemsOfKeys(tx, [...keys.values()], year));
  }
  const evaluate = (refs: References, grp: string | null, period: number | null) =>
    new Evaluator(
      prepared.byId,
      refs,
      aggregates.get(`${grp}|${period}`) ?? new Map(),
      false,
      perSiteOf(perSite, grp, period, itemsByYear.get(period === null ? req.toYear : yearOf(period))),
    );

  const results: SeriesResult[] = [];
  for (const grp of groups) {
    const total = evaluate(prepared.refs, grp, null);
    const perPeriod = periods.map((p) => ({
      period: label(bucket!, p),
      evaluator: evaluate(refsByYear.get(yearOf(p)) ?? prepared.refs, grp, p),
      refs: refsByYear.get(yearOf(p)) ?? prepared.refs,
    }));
    for (const id of new Set(req.indicatorIds)) {
      const row = prepared.byId.get(id)!;
      results.push({
        indicatorId: id,
        ...(grp === null ? {} : { siteId: grp }),
        total: presentCurrentValue(row, prepared.refs, total.run(row, []).evaluation),
        points: perPeriod.map(({ period, evaluator, refs }) => ({
          period,
          value: presentCurrentValue(row, refs, evaluator.run(row, []).evaluation),
        })),
      });
    }
  }
  return results;
}
