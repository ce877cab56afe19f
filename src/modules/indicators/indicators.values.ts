import type { Tx } from '../../db/client.ts';
import type { Caller, Viewer } from '../../domain/caller.ts';
import { authorize, invalidField } from '../../domain/errors.ts';
import { dimensionsOf } from '../../expressions/dimensions.ts';
import { type Evaluation, evaluate, type Resolved, type ResultIssue } from '../../expressions/evaluate.ts';
import { type Node, parseExpression } from '../../expressions/parse.ts';
import { roundStored } from '../../lib/numbers.ts';
import { policy, siteScope } from '../access/index.ts';
import { siteTree } from '../sites/index.ts';
import { describeDimension, sameDimension, type Term, termOfUnit } from '../units/index.ts';
import { type IndicatorRow, presentCurrentValue } from './indicators.present.ts';
import {
  findElement,
  findItem,
  itemRef,
  leafUnits,
  loadReferences,
  type References,
  unitOfSymbol,
} from './indicators.references.ts';
import { type ReferencedItem, indicatorsRepository as repo } from './indicators.repository.ts';
import type { CurrentValue, CurrentValuesBody, ExpressionPart } from './indicators.schemas.ts';
import {
  groupSites,
  isTemplate,
  type SiteGroup,
  type SiteGroups,
  templateRef,
  templatesOf,
} from './indicators.sites.ts';
import {
  type Aggregate,
  type Breakdown,
  type BucketAggregate,
  type Scope,
  indicatorValuesRepository as values,
} from './values.repository.ts';

/** The years a request covers: `year`, or `startYear`..`endYear`; by default the current year. */
function yearsOf(body: CurrentValuesBody, now: Date): { fromYear: number; toYear: number } {
  if (body.year !== undefined && (body.startYear !== undefined || body.endYear !== undefined))
    throw invalidField('year', 'year cannot be combined with startYear or endYear');
  const current = now.getUTCFullYear();
  const fromYear = body.year ?? body.startYear ?? Math.min(body.endYear ?? current, current);
  const toYear = body.year ?? body.endYear ?? Math.max(fromYear, current);
  if (fromYear > toYear) throw invalidField('endYear', 'endYear is before startYear');
  return { fromYear, toYear };
}

/**
 * The sites each requested site stands for: itself and its descendants, within a caller's sites
 * (a site outside them is a 403; an organization viewer sees every site). Without `requested`:
 * null when every site counts (also when the requested sites cover them all), else the caller's sites.
 */
export async function siteTrees(
  tx: Tx,
  viewer: Viewer,
  requested: string[] | undefined,
): Promise<{ all: string[] | null; trees: Map<string, string[]> }> {
  const scope = 'role' in viewer ? await siteScope(tx, viewer) : { all: true, siteIds: new Set<string>() };
  if (!requested) return { all: scope.all ? null : [...scope.siteIds], trees: new Map() };
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
  if (scope.all && tree.spanned(unique) === tree.size) return { all: null, trees };
  const all = [...new Set([...trees.values()].flat())];
  return { all: all.length === tree.size ? null : all, trees };
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
  const rows = await repo.list(tx, organizationId);
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
      // Explained operands show how many sites are behind them: per site, then.
      explaining ? [] : prepared.sumIds,
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
  const siteGroups = await groupSites(tx, organizationId, templates, outers, refYear);
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

/**
 * Current values of indicators (DESIGN §7): each operand aggregated over the whole scope in SQL
 * (one query for all NUMBER elements, one for all activities), then each formula applied.
 */
export async function currentValues(tx: Tx, caller: Caller, body: CurrentValuesBody, now: Date) {
  const { fromYear, toYear } = yearsOf(body, now);
  const prepared = await prepare(tx, caller.organizationId, body.indicatorIds, toYear);
  if (body.periodUnits?.length === 0) throw invalidField('periodUnits', 'periodUnits is empty');
  const scope: Scope = {
    siteIds: (await siteTrees(tx, caller, body.siteIds)).all,
    fromYear,
    toYear,
    periodUnits: body.periodUnits ? [...new Set(body.periodUnits)] : null,
    statuses: body.statuses ?? (await values.defaultStatuses(tx, caller.organizationId)),
  };
  const aggregates = await aggregateOperands(
    tx,
    caller.organizationId,
    wholeScopeOperands(prepared, body.indicatorIds),
    scope,
    undefined,
    body.explain === true,
  );
  const perSite = await siteGroupAggregates(
    tx,
    caller.organizationId,
    prepared,
    scope,
    new Map([[null, scope.siteIds]]),
    toYear,
    undefined,
    body.explain === true,
  );
  const { byId, refs } = prepared;
  const evaluator = new Evaluator(
    byId,
    refs,
    new Map(aggregates.map((a) => [a.element_id, a])),
    body.explain === true,
    perSiteOf(perSite, null, null),
  );
  const siteCount = scope.siteIds?.length ?? (await values.siteCount(tx, caller.organizationId));
  const results: Record<string, CurrentValue> = {};
  for (const id of new Set(body.indicatorIds)) {
    const row = byId.get(id)!;
    const { evaluation, explain } = evaluator.run(row, []);
    results[id] = presentCurrentValue(
      row,
      refs,
      evaluation,
      body.explain
        ? {
            scope: {
              siteIds: body.siteIds ?? null,
              siteCount,
              allSites: scope.siteIds === null,
              fromYear,
              toYear,
              periodUnits: scope.periodUnits,
              statuses: scope.statuses,
            },
            ...explain,
          }
        : undefined,
    );
  }
  return { results };
}

/** The most entries an explanation lists (operands, coefficients, conversions, nested, …). */
export const EXPLAIN_LIMIT = 20_000;

/** One indicator's explanation: what it took, once, whatever the number of references to it. */
export interface Explanation {
  operands: unknown[];
  coefficients: unknown[];
  conversions: unknown[];
  /** References to nested indicators (their explanation is in `indicators`, by id). */
  nested: unknown[];
  /** Site-dependent coefficients: the item each key resolved to and how many sites used it. */
  siteCoefficients?: unknown[];
}

type Result = { evaluation: Evaluation; explanation: Explanation };

/** Per-site evaluation: the groups of sites and each group's aggregates. */
export interface PerSite {
  groups: SiteGroup[];
  items: SiteGroups['items'];
  aggregates: Map<string, Map<string, Aggregate>>;
}

const emptyExplanation = (): Explanation => ({ operands: [], coefficients: [], conversions: [], nested: [] });

/**
 * Evaluates indicators over loaded aggregates; nested indicators are evaluated (and explained)
 * once each. An indicator with a site-dependent coefficient is evaluated per group of sites
 * (`perSite`) and the groups' values added up; within a group, everything it uses (nested
 * indicators too) is evaluated over the group's own aggregates.
 */
export class Evaluator {
  private readonly done = new Map<string, Result>();

  constructor(
    private readonly byId: Map<string, IndicatorRow>,
    private readonly refs: References,
    private readonly aggregates: Map<string, Aggregate>,
    private readonly explaining: boolean,
    private readonly perSite: PerSite | null = null,
    private readonly group: SiteGroup | null = null,
  ) {}

  /** The value of an indicator and, when explaining, its explanation with its nested ones. */
  run(row: IndicatorRow, path: string[]): { evaluation: Evaluation; explain: Record<string, unknown> } {
    const result = this.evaluateRow(row, path);
    if (!this.explaining) return { evaluation: result.evaluation, explain: {} };
    return { evaluation: result.evaluation, explain: this.explainOf(row.id, result.explanation) };
  }

  /** The explanation of `id` with every indicator it uses, directly or not, listed once by id. */
  private explainOf(id: string, own: Explanation): Record<string, unknown> {
    const indicators: Record<string, unknown> = {};
    let size = entries(own);
    const stack = [...nestedIds(own)];
    const seen = new Set<string>([id]);
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      const done = this.done.get(next);
      const inner = this.byId.get(next);
      if (!done || !inner) continue;
      size += entries(done.explanation) + 1;
      if (size > EXPLAIN_LIMIT)
        return {
          truncated: true,
          issues: [
            {
              type: 'explainTooLarge',
              message: `The explanation would list more than ${EXPLAIN_LIMIT} entries; explain fewer or smaller indicators`,
            },
          ],
        };
      indicators[next] = {
        name: inner.name,
        value: done.evaluation.value,
        unit: inner.unit_id ? (this.refs.units.get(inner.unit_id)?.symbol ?? null) : null,
        ...done.explanation,
      };
      stack.push(...nestedIds(done.explanation));
    }
    return { ...own, indicators };
  }

  private evaluateRow(row: IndicatorRow, path: string[]): Result {
    const cached = this.done.get(row.id);
    if (cached) return cached;
    const result =
      this.perSite && !this.group && isSiteDependent(row) ? this.perSites(row, path) : this.direct(row, path);
    this.done.set(row.id, result);
    return result;
  }

  /** A site-dependent indicator: the sum over the groups of sites of each group's value. */
  private perSites(row: IndicatorRow, path: string[]): Result {
    const perSite = this.perSite!;
    const parts = row.expression_parts as ExpressionPart[];
    const issues: ResultIssue[] = [];
    const explanation = emptyExplanation();
    const used = new Map<string, Record<string, unknown>>();
    let sum = 0;
    let counted = false;
    let failure: ResultIssue | null = null;
    for (const group of perSite.groups) {
      const aggregates = perSite.aggregates.get(group.id);
      if (!aggregates) continue; // no data at all in this group
      const inner = new Evaluator(this.byId, this.refs, aggregates, this.explaining, perSite, group);
      const { evaluation, explanation: groupExplanation } = inner.evaluateRow(row, path);
      const first = evaluation.issues[0];
      if (evaluation.value !== null) {
        sum += evaluation.value;
        counted = true;
        for (const issue of evaluation.issues)
          if (
            issue.type === 'unknownUnit' &&
            !issues.some(
              (i) => i.type === issue.type && i.partIndex === issue.partIndex && i.key === issue.key,
            )
          )
            issues.push(issue);
        if (this.explaining) {
          explanation.operands.push(...groupExplanation.operands);
          explanation.conversions.push(...groupExplanation.conversions);
          explanation.nested.push(...groupExplanation.nested);
        }
        // The sites of the group with data (explained aggregates count their sites).
        const withData = Math.max(0, ...[...aggregates.values()].map((a) => a.site_count));
        parts.forEach((part, partIndex) => {
          if (!this.explaining || !isTemplate(part)) return;
          const ref = templateRef(part);
          const key = group.keys.get(ref)!;
          const item = perSite.items.get(`${itemDataset(part)}:${key}`);
          const entry = used.get(`${partIndex}|${key}`);
          if (entry) entry.siteCount = (entry.siteCount as number) + withData;
          else
            used.set(`${partIndex}|${key}`, {
              partIndex,
              template: part.value,
              key,
              datasetItemId: item?.id ?? null,
              datasetId: item?.dataset_id ?? null,
              year: item?.year ?? null,
              value: item?.value ?? null,
              unit: item?.unit ?? null,
              siteCount: withData,
            });
        });
      } else if (first?.type === 'missingDatasetItem') {
        const part = parts[first.partIndex ?? -1];
        const key = part ? group.keys.get(templateRef(part)) : undefined;
        for (const site of group.sites)
          issues.push({
            type: 'missingDatasetItem',
            message:
              key === null || key === undefined
                ? `Site "${site.name}" has no value for a placeholder of ${part?.value ?? 'a coefficient'}: its data is left out`
                : `No coefficient "${key}" for site "${site.name}": its data is left out`,
            partIndex: first.partIndex,
            siteId: site.id,
            siteName: site.name,
            key: key ?? part?.value ?? null,
          });
      } else if (first && first.type !== 'noData')
        failure ??= { ...first, siteIds: group.sites.map((s) => s.id) };
    }
    explanation.siteCoefficients = [...used.values()];
    if (failure)
      return { evaluation: { value: null, issues: [failure, ...issues], conversions: [] }, explanation };
    if (!counted && issues.length === 0)
      return {
        evaluation: {
          value: null,
          issues: [{ type: 'noData', message: 'No data in scope for any operand' }],
          conversions: [],
        },
        explanation,
      };
    return {
      evaluation: { value: counted ? roundSum(sum) : null, issues, conversions: [] },
      explanation,
    };
  }

  /**
   * The value in the indicator's unit: an expression of the same dimension in another scale
   * (kgCO2e for a tCO2e indicator) is converted. A pure number, an unknown unit or another
   * dimension (an indicator saved before units were checked) is taken as it is.
   */
  private inUnit(row: IndicatorRow, evaluation: Evaluation, term: Term | null): Evaluation {
    const unit = row.unit_id ? this.refs.units.get(row.unit_id) : undefined;
    if (evaluation.value === null || !unit || !term || term.dimension.size === 0) return evaluation;
    const wanted = termOfUnit(unit);
    const ratio = term.factor / wanted.factor;
    if (!sameDimension(term.dimension, wanted.dimension) || Math.abs(ratio - 1) < 1e-12) return evaluation;
    const after = roundStored((evaluation.value * term.factor) / wanted.factor);
    return {
      ...evaluation,
      value: after,
      conversions: [
        ...evaluation.conversions,
        {
          partIndex: -1,
          from: `the expression's unit (${term.factor} × the base unit of ${describeDimension(term.dimension)})`,
          to: unit.symbol,
          factor: ratio,
          before: evaluation.value,
          after,
        },
      ],
    };
  }

  /**
   * The coefficients a site group's placeholder keys resolved to whose unit is not in the catalog:
   * like any part of unknown unit, neither checked nor converted, and said so (`unknownUnit`).
   */
  private unknownTemplateUnits(
    row: IndicatorRow,
    parts: ExpressionPart[],
    itemOf: (part: ExpressionPart) => ReferencedItem | undefined,
  ): ResultIssue[] {
    const unit = this.refs.units.get(row.unit_id!);
    if (!unit) return [];
    const found: ResultIssue[] = [];
    parts.forEach((part, partIndex) => {
      if (part.type !== 'datasetItem' || !isTemplate(part)) return;
      const item = itemOf(part);
      if (!item || unitOfSymbol(this.refs, item.unit)) return;
      found.push({
        type: 'unknownUnit',
        partIndex,
        key: item.key,
        message: `The coefficient "${item.name}" (key ${item.key}) has ${item.unit ? `the unit "${item.unit}", which is not in the unit catalog` : 'no unit'}: its unit is unknown, so it is neither checked against the indicator's unit (${unit.symbol}) nor converted into it`,
      });
    });
    return found;
  }

  private direct(row: IndicatorRow, path: string[]): Result {
    const parts = row.expression_parts as ExpressionPart[];
    const tree = parsedExpression(parts);
    if (tree instanceof Error) {
      const issue = { type: 'invalidExpression', message: tree.message };
      return {
        evaluation: { value: null, issues: [issue], conversions: [] },
        explanation: emptyExplanation(),
      };
    }
    const operands: unknown[] = [];
    const coefficients: unknown[] = [];
    const nested: unknown[] = [];
    const passed: ResultIssue[] = [];
    const itemOf = (part: ExpressionPart) =>
      isTemplate(part)
        ? this.group && this.perSite
          ? this.perSite.items.get(`${itemDataset(part)}:${this.group.keys.get(templateRef(part))}`)
          : undefined
        : findItem(this.refs, part);
    const dims = dimensionsOf(tree, (leaf) => {
      const part = parts[leaf.index]!;
      return leafUnits(
        this.refs,
        part,
        part.type === 'datasetItem' ? itemOf(part) : undefined,
        part.type === 'indicator' ? this.byId.get(part.value) : undefined,
      );
    });
    const evaluated = evaluate(
      tree,
      (leaf): Resolved => {
        const part = parts[leaf.index]!;
        if (leaf.type === 'datasetItem') {
          const item = itemOf(part);
          const inputUnit = item?.input_unit_id ? (this.refs.units.get(item.input_unit_id) ?? null) : null;
          if (this.explaining)
            coefficients.push({
              partIndex: leaf.index,
              datasetItemId: item?.id ?? null,
              datasetId: item?.dataset_id ?? null,
              datasetName: item?.dataset_name ?? null,
              key: item?.key ?? part.value,
              year: item?.year ?? null,
              value: item?.value ?? null,
              unit: item?.unit ?? null,
              inputUnit: inputUnit?.symbol ?? null,
            });
          return { kind: 'coefficient', value: item?.value ?? null, inputUnit };
        }
        if (leaf.type === 'indicator') {
          const inner = this.byId.get(leaf.value);
          if (!inner || path.includes(inner.id)) {
            return {
              kind: 'nested',
              value: null,
              hasData: true,
              failure: {
                type: 'invalidExpression',
                message: `indicator ${leaf.value} cannot be evaluated here`,
              },
            };
          }
          const result = this.evaluateRow(inner, [...path, row.id]);
          const hasData = result.evaluation.issues[0]?.type !== 'noData';
          // Sites a nested indicator left out are left out of this one too: say so here.
          if (result.evaluation.value !== null)
            for (const issue of result.evaluation.issues)
              if (!passed.some((p) => p === issue)) passed.push(issue);
          if (this.explaining)
            nested.push({
              partIndex: leaf.index,
              indicatorId: inner.id,
              name: inner.name,
              value: result.evaluation.value,
              unit: inner.unit_id ? (this.refs.units.get(inner.unit_id)?.symbol ?? null) : null,
            });
          return {
            kind: 'nested',
            value: result.evaluation.value,
            hasData,
            failure: result.evaluation.issues[0],
          };
        }
        const element = findElement(this.refs, part);
        const aggregate = element ? this.aggregates.get(element.id) : undefined;
        const aggregation = element?.type === 'ACTIVITY' ? 'SUM' : (element?.aggregation ?? 'SUM');
        const value =
          (aggregation === 'LAST'
            ? aggregate?.last_sum
            : aggregation === 'AVERAGE'
              ? aggregate?.average_sum
              : aggregate?.sum) ?? 0;
        const unit = element?.unit_id ? (this.refs.units.get(element.unit_id) ?? null) : null;
        if (this.explaining)
          operands.push({
            partIndex: leaf.index,
            type: leaf.type,
            ref: leaf.value,
            label: element?.label ?? null,
            formName: element?.form_name ?? null,
            aggregation,
            value,
            unit: unit?.symbol ?? null,
            valueCount: aggregate?.value_count ?? 0,
            siteCount: aggregate?.site_count ?? 0,
          });
        return { kind: 'data', value, hasData: (aggregate?.value_count ?? 0) > 0, unit };
      },
      dims.terms,
    );
    const evaluation = this.inUnit(row, evaluated, dims.terms.get(tree) ?? null);
    if (this.group && row.unit_id) passed.push(...this.unknownTemplateUnits(row, parts, itemOf));
    return {
      evaluation:
        evaluation.value === null ? evaluation : { ...evaluation, issues: [...evaluation.issues, ...passed] },
      explanation: { operands, coefficients, conversions: evaluation.conversions, nested },
    };
  }
}

/**
 * An expression's parse tree (or why it does not parse), once per stored expression: a series
 * evaluates each indicator once per period and per site group.
 */
const parsed = new WeakMap<ExpressionPart[], Node | Error>();
function parsedExpression(parts: ExpressionPart[]): Node | Error {
  let tree = parsed.get(parts);
  if (!tree) {
    try {
      tree = parseExpression(parts);
    } catch (e) {
      tree = e as Error;
    }
    parsed.set(parts, tree);
  }
  return tree;
}

/** The datasetId of a datasetItem part named by key. */
const itemDataset = (part: ExpressionPart) =>
  (part.metadata as { datasetId?: string } | undefined)?.datasetId ?? '';

/** Whether the indicator itself has a site-dependent coefficient. */
export const isSiteDependent = (row: IndicatorRow) =>
  (row.expression_parts as ExpressionPart[]).some(isTemplate);

/** A sum of group values, rounded like every computed number so that 0.1 + 0.2 is 0.3. */
const roundSum = (value: number) => (value === 0 ? 0 : roundStored(value));

const entries = (e: Explanation) =>
  e.operands.length +
  e.coefficients.length +
  e.conversions.length +
  e.nested.length +
  (e.siteCoefficients?.length ?? 0);

const nestedIds = (e: Explanation) => (e.nested as { indicatorId: string }[]).map((n) => n.indicatorId);
