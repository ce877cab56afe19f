import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, invalidField } from '../../domain/errors.ts';
import { type Evaluation, evaluate, type Resolved, type ResultIssue } from '../../expressions/evaluate.ts';
import { type Node, parseExpression } from '../../expressions/parse.ts';
import { policy } from '../access/access.policy.ts';
import { siteScope } from '../access/site-scope.ts';
import { sitesRepository } from '../sites/sites.repository.ts';
import { convertValue } from '../units/units.convert.ts';
import {
  findElement,
  findItem,
  itemRef,
  listIssues,
  loadReferences,
  type References,
} from './indicators.references.ts';
import { indicatorsRepository as repo } from './indicators.repository.ts';
import type { CurrentValuesBody, ExpressionPart } from './indicators.schemas.ts';
import {
  type Aggregate,
  type Breakdown,
  type BucketAggregate,
  type Scope,
  valuesRepository as values,
} from './values.repository.ts';

export type Row = Awaited<ReturnType<typeof repo.list>>[number];

export interface CurrentValue {
  value: number | null;
  unit: string | null;
  displayValue: number | null;
  displayUnit: string | null;
  formatted: string | null;
  issues: ResultIssue[];
  explain?: unknown;
}

/** Who values are computed for: a caller (limited to its sites), or a whole organization. */
export type Viewer = Caller | { organizationId: string };

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
  const existing = await sitesRepository.existingIds(tx, viewer.organizationId, requested);
  requested.forEach((id, i) => {
    if (!existing.has(id))
      throw invalidField(`siteIds.${i}`, `siteIds.${i} is not a site of this organization`);
  });
  authorize(
    requested.every((id) => policy.canReadSite(scope, id)),
    'A requested site is outside your sites',
  );
  const unique = [...new Set(requested)];
  const pairs = await values.descendantsOf(tx, viewer.organizationId, unique);
  const trees = new Map<string, string[]>(unique.map((id) => [id, []]));
  for (const { root, id } of pairs) if (scope.all || scope.siteIds.has(id)) trees.get(root)!.push(id);
  const all = [...new Set([...trees.values()].flat())];
  // Every site of the organization (a root asked for): no site filter at all.
  const everySite = all.length === (await values.siteCount(tx, viewer.organizationId));
  return { all: everySite ? null : all, trees };
}

/** The requested indicators and every indicator they use, directly or not. */
function closure(all: Map<string, Row>, ids: string[]): Row[] {
  const out = new Map<string, Row>();
  const stack = [...ids];
  while (stack.length > 0) {
    const row = all.get(stack.pop()!);
    if (!row || out.has(row.id)) continue;
    out.set(row.id, row);
    for (const p of row.expression_parts as ExpressionPart[]) if (p.type === 'indicator') stack.push(p.value);
  }
  return [...out.values()];
}

export function formatNumber(value: number, symbol: string | null): string {
  const abs = Math.abs(value);
  const options = abs !== 0 && abs < 1 ? { maximumSignificantDigits: 3 } : { maximumFractionDigits: 2 };
  const text = new Intl.NumberFormat('en-US', options).format(value);
  return symbol ? `${text} ${symbol}` : text;
}

/** The requested indicators (each must exist: 400 otherwise), those they use and their operands. */
export interface Prepared {
  byId: Map<string, Row>;
  needed: Row[];
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
export function referencesAt(tx: Tx, organizationId: string, rows: Row[], year: number): Promise<References> {
  return loadReferences(
    tx,
    organizationId,
    rows.map((r) => r.expression_parts as ExpressionPart[]),
    year,
  );
}

/** Whether some coefficient is named by key (so its year depends on the scope's). */
export const usesKeyedItems = (rows: Row[]) =>
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

/** An indicator's evaluation as answered: units, display value, formatting and issues. */
export function present(
  row: Row,
  refs: References,
  evaluation: Evaluation,
  explain?: Record<string, unknown>,
): CurrentValue {
  const unit = row.unit_id ? refs.units.get(row.unit_id) : undefined;
  const display = row.display_unit_id ? refs.units.get(row.display_unit_id) : undefined;
  const displayUnit = display ?? unit;
  const value = evaluation.value;
  const displayValue = value === null ? null : unit && display ? convertValue(value, unit, display) : value;
  const warnings = listIssues(row.expression_parts as ExpressionPart[], refs)
    .filter((i) => i.type === 'deletedFormElement')
    .map((i) => ({ type: i.type, message: i.message, partIndex: i.partIndex ?? undefined }));
  return {
    value,
    unit: unit?.symbol ?? null,
    displayValue,
    displayUnit: displayUnit?.symbol ?? null,
    formatted: displayValue === null ? null : formatNumber(displayValue, displayUnit?.symbol ?? null),
    issues: [...evaluation.issues, ...warnings],
    ...(explain ? { explain } : {}),
  };
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
    prepared,
    scope,
    undefined,
    body.explain === true,
  );
  const { byId, refs } = prepared;
  const evaluator = new Evaluator(
    byId,
    refs,
    new Map(aggregates.map((a) => [a.element_id, a])),
    body.explain === true,
  );
  const results: Record<string, CurrentValue> = {};
  for (const id of new Set(body.indicatorIds)) {
    const row = byId.get(id)!;
    const { evaluation, explain } = evaluator.run(row, []);
    results[id] = present(
      row,
      refs,
      evaluation,
      body.explain
        ? {
            scope: {
              siteIds: body.siteIds ?? null,
              siteCount: scope.siteIds?.length ?? null,
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

/** Evaluates indicators over loaded aggregates; nested indicators are evaluated once each. */
export class Evaluator {
  private readonly done = new Map<string, { evaluation: Evaluation; explain: Record<string, unknown> }>();

  constructor(
    private readonly byId: Map<string, Row>,
    private readonly refs: References,
    private readonly aggregates: Map<string, Aggregate>,
    private readonly explaining: boolean,
  ) {}

  run(row: Row, path: string[]): { evaluation: Evaluation; explain: Record<string, unknown> } {
    const cached = this.done.get(row.id);
    if (cached) return cached;
    const parts = row.expression_parts as ExpressionPart[];
    let tree: Node;
    try {
      tree = parseExpression(parts);
    } catch (e) {
      const issue = { type: 'invalidExpression', message: (e as Error).message };
      return { evaluation: { value: null, issues: [issue], conversions: [] }, explain: {} };
    }
    const operands: unknown[] = [];
    const coefficients: unknown[] = [];
    const nested: unknown[] = [];
    const evaluation = evaluate(tree, (leaf): Resolved => {
      const part = parts[leaf.index]!;
      if (leaf.type === 'datasetItem') {
        const item = findItem(this.refs, part);
        const inputUnit = item?.input_unit_id ? (this.refs.units.get(item.input_unit_id) ?? null) : null;
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
        const result = this.run(inner, [...path, row.id]);
        const hasData = result.evaluation.issues[0]?.type !== 'noData';
        nested.push({
          partIndex: leaf.index,
          indicatorId: inner.id,
          name: inner.name,
          value: result.evaluation.value,
          unit: inner.unit_id ? (this.refs.units.get(inner.unit_id)?.symbol ?? null) : null,
          ...result.explain,
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
    });
    const explain = this.explaining
      ? { operands, coefficients, conversions: evaluation.conversions, nested }
      : {};
    const result = { evaluation, explain };
    this.done.set(row.id, result);
    return result;
  }
}
