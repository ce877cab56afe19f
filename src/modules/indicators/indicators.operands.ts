import type { Tx } from '../../db/client.ts';
import type { Viewer } from '../../domain/caller.ts';
import { authorize, invalidField } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, siteScope } from '../access/index.ts';
import { siteTree } from '../sites/index.ts';
import { findElement, itemRef, loadReferences, type References } from './indicators.references.ts';
import type { IndicatorRow } from './indicators.repository.ts';
import { indicatorsRepository as repo } from './indicators.repository.ts';
import type { ExpressionPart } from './indicators.schemas.ts';
import type { Aggregate, Breakdown, BucketAggregate, Scope } from './indicators.scope.ts';
import {
  groupSites,
  isSiteDependent,
  type SiteGroup,
  type SiteGroups,
  templatesOf,
} from './indicators.sites.ts';
import { indicatorValuesRepository as values } from './values.repository.ts';

/**
 * The sites each requested site stands for: itself and its descendants, within a caller's sites
 * (a site outside them is a 403; an organization viewer sees every site). Without `requested`:
 * null when every site counts (also when the requested sites cover them all), else the caller's sites.
 * `whole`: each tree is its site's whole subtree (the caller sees every site).
 */
export async function siteTrees(
  tx: Tx,
  viewer: Viewer,
  requested: string[] | undefined,
): Promise<{ all: string[] | null; trees: Map<string, string[]>; whole: boolean }> {
  const scope = 'role' in viewer ? await siteScope(tx, viewer) : { all: true, siteIds: new Set<string>() };
  if (!requested) return { all: scope.all ? null : [...scope.siteIds], trees: new Map(), whole: scope.all };
  const tree = await siteTree(tx, viewer.organizationId);
  requested.forEach((id, i) => {
    if (!tree.has(id)) throw invalidField(`siteIds.${i}`, `siteIds.${i} is not a site of this organization`);
  });
  authorize(
    requested.every((id) => policy.canReadSite(scope, id)),
    'A requested site is outside your sites',
  );
  const unique = [...new Set(requested)];
  const trees = new Map<string, string[]>(
    unique.map((id) => [
      id,
      scope.all ? tree.subtree(id) : tree.subtree(id).filter((s) => scope.siteIds.has(s)),
    ]),
  );
  // Every site of the organization (a root asked for): no site filter at all.
  if (scope.all && tree.spanned(unique) === tree.size) return { all: null, trees, whole: true };
  const all = [...new Set([...trees.values()].flat())];
  return { all: all.length === tree.size ? null : all, trees, whole: scope.all };
}

/** The requested indicators and every indicator they use, directly or not. */
function closure(all: Map<string, IndicatorRow>, ids: string[]): IndicatorRow[] {
  const out = new Map<string, IndicatorRow>();
  const stack = [...ids];
  while (stack.length > 0) {
    const row = all.get(stack.pop()!);
    if (!row || out.has(row.id)) continue;
    out.set(row.id, row);
    for (const p of row.expression_parts as ExpressionPart[]) if (p.type === 'indicator') stack.push(p.value);
  }
  return [...out.values()];
}

/** The requested indicators (each must exist: 400 otherwise), those they use and their operands. */
export interface Prepared {
  byId: Map<string, IndicatorRow>;
  needed: IndicatorRow[];
  refs: References;
  numberIds: string[];
  lastIds: string[];
  /** NUMBER elements aggregated as SUM: summed without a per-site step unless explained. */
  sumIds: string[];
  activityIds: string[];
  /** Operand elements of QUARTERLY and of YEARLY forms. */
  quarterlyIds: string[];
  yearlyIds: string[];
}

export async function prepare(
  tx: Tx,
  organizationId: string,
  indicatorIds: string[],
  refYear: number,
): Promise<Prepared> {
  const rows = await repo.closure(tx, organizationId, indicatorIds.filter(isUuid));
  const byId = new Map(rows.map((r) => [r.id, r]));
  indicatorIds.forEach((id, i) => {
    if (!byId.has(id))
      throw invalidField(`indicatorIds.${i}`, `indicatorIds.${i} is not an indicator of this organization`);
  });
  const needed = closure(byId, indicatorIds);
  const refs = await referencesAt(tx, organizationId, needed, refYear);
  const numberIds = new Set<string>();
  const lastIds = new Set<string>();
  const sumIds = new Set<string>();
  const activityIds = new Set<string>();
  const quarterlyIds = new Set<string>();
  const yearlyIds = new Set<string>();
  for (const row of needed) {
    for (const part of row.expression_parts as ExpressionPart[]) {
      const element =
        part.type === 'formElement' || part.type === 'activity' ? findElement(refs, part) : undefined;
      if (!element) continue;
      if (element.type === 'ACTIVITY') activityIds.add(element.id);
      else numberIds.add(element.id);
      if (element.aggregation === 'LAST') lastIds.add(element.id);
      if (element.type !== 'ACTIVITY' && element.aggregation === 'SUM') sumIds.add(element.id);
      if (element.period_type === 'QUARTERLY') quarterlyIds.add(element.id);
      if (element.period_type === 'YEARLY') yearlyIds.add(element.id);
    }
  }
  return {
    byId,
    needed,
    refs,
    numberIds: [...numberIds],
    lastIds: [...lastIds],
    sumIds: [...sumIds].filter((id) => !lastIds.has(id)),
    activityIds: [...activityIds],
    quarterlyIds: [...quarterlyIds],
    yearlyIds: [...yearlyIds],
  };
}

/** What the indicators name, with coefficients named by key as of `year`. */
export function referencesAt(
  tx: Tx,
  organizationId: string,
  rows: IndicatorRow[],
  year: number,
): Promise<References> {
  return loadReferences(
    tx,
    organizationId,
    rows.map((r) => r.expression_parts as ExpressionPart[]),
    year,
  );
}

/** Whether some coefficient is named by key (so its year depends on the scope's). */
export const usesKeyedItems = (rows: IndicatorRow[]) =>
  rows.some((r) =>
    (r.expression_parts as ExpressionPart[]).some(
      (p) => p.type === 'datasetItem' && 'datasetId' in itemRef(p),
    ),
  );

/** Every operand aggregated: one query for NUMBER elements, one for activities (per bucket). */
export async function aggregateOperands(
  tx: Tx,
  organizationId: string,
  prepared: Prepared,
  scope: Scope,
  breakdown?: Omit<Breakdown, 'quarterlyIds' | 'yearlyIds'>,
  explaining = false,
): Promise<BucketAggregate[]> {
  const full = breakdown && {
    ...breakdown,
    quarterlyIds: prepared.quarterlyIds,
    yearlyIds: prepared.yearlyIds,
  };
  if (prepared.numberIds.length === 0 && prepared.activityIds.length === 0) return [];
  await values.tuneForAggregates(tx);
  const [numberAggregates, activityAggregates] = await Promise.all([
    values.elements(
      tx,
      organizationId,
      prepared.numberIds,
      prepared.lastIds,
      scope,
      full,
      prepared.sumIds,
      // Explained operands show how many sites are behind them: per site, then.
      explaining,
    ),
    values.activities(tx, organizationId, prepared.activityIds, scope, full),
  ]);
  return [...numberAggregates, ...activityAggregates];
}

/** The prepared operands restricted to the elements of `rows`. */
function restrictTo(prepared: Prepared, rows: IndicatorRow[]): Prepared {
  const elementIds = new Set<string>();
  for (const row of rows)
    for (const part of row.expression_parts as ExpressionPart[]) {
      const element =
        part.type === 'formElement' || part.type === 'activity'
          ? findElement(prepared.refs, part)
          : undefined;
      if (element) elementIds.add(element.id);
    }
  const only = (ids: string[]) => ids.filter((id) => elementIds.has(id));
  return {
    ...prepared,
    numberIds: only(prepared.numberIds),
    lastIds: only(prepared.lastIds),
    sumIds: only(prepared.sumIds),
    activityIds: only(prepared.activityIds),
  };
}

/**
 * The operands aggregated over the whole scope: those of the requested indicators and of what
 * they use, except below a site-dependent indicator (evaluated from per-group aggregates only).
 */
export function wholeScopeOperands(prepared: Prepared, indicatorIds: string[]): Prepared {
  if (!prepared.needed.some(isSiteDependent)) return prepared;
  const out = new Map<string, IndicatorRow>();
  const stack = [...indicatorIds];
  while (stack.length > 0) {
    const row = prepared.byId.get(stack.pop()!);
    if (!row || out.has(row.id) || isSiteDependent(row)) continue;
    out.set(row.id, row);
    for (const p of row.expression_parts as ExpressionPart[]) if (p.type === 'indicator') stack.push(p.value);
  }
  return restrictTo(prepared, [...out.values()]);
}

/** Per-site evaluation: the groups of sites and each group's aggregates. */
export interface PerSite {
  groups: SiteGroup[];
  items: SiteGroups['items'];
  aggregates: Map<string, Map<string, Aggregate>>;
}

/**
 * For the site-dependent indicators among the prepared ones (null when there are none): the
 * sites of each outer set grouped by the keys they resolve to, and the operands of those
 * indicators (and of all they use) aggregated per group, in one grouped query per kind of
 * element. The groups' aggregates are keyed by group id (and by period with a breakdown).
 */
export async function siteGroupAggregates(
  tx: Tx,
  organizationId: string,
  prepared: Prepared,
  scope: Scope,
  outers: Map<string | null, string[] | null>,
  refYear: number,
  breakdown?: Omit<Breakdown, 'quarterlyIds' | 'yearlyIds' | 'groups'>,
  explaining = false,
): Promise<{ siteGroups: SiteGroups; rows: BucketAggregate[] } | null> {
  const dependent = prepared.needed.filter(isSiteDependent);
  if (dependent.length === 0) return null;
  const used = closure(
    prepared.byId,
    dependent.map((r) => r.id),
  );
  const templates = templatesOf(dependent.map((r) => r.expression_parts as ExpressionPart[]));
  const siteGroups = await groupSites(tx, organizationId, templates, outers, refYear, scope);
  const subset = restrictTo(prepared, used);
  const rows = await aggregateOperands(
    tx,
    organizationId,
    subset,
    scope,
    {
      bucket: breakdown?.bucket ?? null,
      months: breakdown?.months ?? null,
      groups: { ...siteGroups.pairs, cover: siteGroups.covers },
    },
    explaining,
  );
  return { siteGroups, rows };
}

/** The aggregates of site groups by period (null: the total), group and element, indexed once. */
const groupIndex = new WeakMap<BucketAggregate[], Map<number | null, Map<string, Map<string, Aggregate>>>>();

/**
 * A PerSite of the groups of one outer set, with their aggregates of one period (or the total).
 * The rows are indexed by period once, so a series of many periods reads each period's own rows
 * only (not every group's rows of every period, once per period).
 */
export function perSiteOf(
  found: { siteGroups: SiteGroups; rows: BucketAggregate[] } | null,
  outer: string | null,
  period: number | null,
  items?: SiteGroups['items'],
): PerSite | null {
  if (!found) return null;
  let index = groupIndex.get(found.rows);
  if (!index) {
    index = new Map();
    for (const row of found.rows) {
      if (!row.grp) continue;
      if (!index.has(row.period)) index.set(row.period, new Map());
      const byGroup = index.get(row.period)!;
      if (!byGroup.has(row.grp)) byGroup.set(row.grp, new Map());
      byGroup.get(row.grp)!.set(row.element_id, row);
    }
    groupIndex.set(found.rows, index);
  }
  const groups = found.siteGroups.groups.filter((g) => g.outer === outer);
  const ofPeriod = index.get(period);
  const aggregates = new Map<string, Map<string, Aggregate>>();
  for (const g of groups) {
    const own = ofPeriod?.get(g.id);
    if (own) aggregates.set(g.id, own);
  }
  return { groups, items: items ?? found.siteGroups.items, aggregates };
}
