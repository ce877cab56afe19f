import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, invalidField } from '../../domain/errors.ts';
import { type Evaluation, evaluate, type Resolved, type ResultIssue } from '../../expressions/evaluate.ts';
import { type Node, parseExpression } from '../../expressions/parse.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy } from '../access/access.policy.ts';
import { siteScope } from '../access/site-scope.ts';
import { convertValue } from '../units/units.convert.ts';
import {
  findElement,
  findItem,
  listIssues,
  loadReferences,
  type References,
} from './indicators.references.ts';
import { indicatorsRepository as repo } from './indicators.repository.ts';
import type { CurrentValuesBody, ExpressionPart } from './indicators.schemas.ts';
import { type Aggregate, type Scope, valuesRepository as values } from './values.repository.ts';

type Row = Awaited<ReturnType<typeof repo.list>>[number];

interface CurrentValue {
  value: number | null;
  unit: string | null;
  displayValue: number | null;
  displayUnit: string | null;
  formatted: string | null;
  issues: ResultIssue[];
  explain?: unknown;
}

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
 * The sites counted: each requested site with its descendants, within the caller's sites
 * (a site outside them is a 403); by default every site the caller may read (null: all).
 */
async function sitesOf(tx: Tx, caller: Caller, requested: string[] | undefined): Promise<string[] | null> {
  const scope = await siteScope(tx, caller);
  if (!requested) return scope.all ? null : [...scope.siteIds];
  const existing = await values.existingSites(tx, caller.organizationId, requested.filter(isUuid));
  requested.forEach((id, i) => {
    if (!existing.has(id))
      throw invalidField(`siteIds.${i}`, `siteIds.${i} is not a site of this organization`);
  });
  authorize(
    requested.every((id) => policy.canReadSite(scope, id)),
    'A requested site is outside your sites',
  );
  const tree = await values.withDescendants(tx, caller.organizationId, [...new Set(requested)]);
  return scope.all ? tree : tree.filter((id) => scope.siteIds.has(id));
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

/**
 * Current values of indicators (DESIGN §7): each operand aggregated over the whole scope in SQL
 * (one query for all NUMBER elements, one for all activities), then each formula applied.
 */
export async function currentValues(tx: Tx, caller: Caller, body: CurrentValuesBody, now: Date) {
  const { fromYear, toYear } = yearsOf(body, now);
  const rows = await repo.list(tx, caller.organizationId);
  const byId = new Map(rows.map((r) => [r.id, r]));
  body.indicatorIds.forEach((id, i) => {
    if (!byId.has(id))
      throw invalidField(`indicatorIds.${i}`, `indicatorIds.${i} is not an indicator of this organization`);
  });
  if (body.periodUnits?.length === 0) throw invalidField('periodUnits', 'periodUnits is empty');
  const scope: Scope = {
    siteIds: await sitesOf(tx, caller, body.siteIds),
    fromYear,
    toYear,
    periodUnits: body.periodUnits ? [...new Set(body.periodUnits)] : null,
    statuses: body.statuses ?? (await values.defaultStatuses(tx, caller.organizationId)),
  };
  const needed = closure(byId, body.indicatorIds);
  const refs = await loadReferences(
    tx,
    caller.organizationId,
    needed.map((r) => r.expression_parts as ExpressionPart[]),
    toYear,
  );

  const numberIds = new Set<string>();
  const lastIds = new Set<string>();
  const activityIds = new Set<string>();
  for (const row of needed) {
    for (const part of row.expression_parts as ExpressionPart[]) {
      const element =
        part.type === 'formElement' || part.type === 'activity' ? findElement(refs, part) : undefined;
      if (!element) continue;
      if (element.type === 'ACTIVITY') activityIds.add(element.id);
      else numberIds.add(element.id);
      if (element.aggregation === 'LAST') lastIds.add(element.id);
    }
  }
  const [numberAggregates, activityAggregates] = await Promise.all([
    values.elements(tx, caller.organizationId, [...numberIds], [...lastIds], scope),
    values.activities(tx, caller.organizationId, [...activityIds], scope),
  ]);
  const aggregates = new Map<string, Aggregate>(
    [...numberAggregates, ...activityAggregates].map((a) => [a.element_id, a]),
  );

  const evaluator = new Evaluator(byId, refs, aggregates, body.explain === true);
  const results: Record<string, CurrentValue> = {};
  for (const id of new Set(body.indicatorIds)) {
    const row = byId.get(id)!;
    const { evaluation, explain } = evaluator.run(row, []);
    const unit = row.unit_id ? refs.units.get(row.unit_id) : undefined;
    const display = row.display_unit_id ? refs.units.get(row.display_unit_id) : undefined;
    const displayUnit = display ?? unit;
    const value = evaluation.value;
    const displayValue = value === null ? null : unit && display ? convertValue(value, unit, display) : value;
    const warnings = listIssues(row.expression_parts as ExpressionPart[], refs)
      .filter((i) => i.type === 'deletedFormElement')
      .map((i) => ({ type: i.type, message: i.message, partIndex: i.partIndex ?? undefined }));
    results[id] = {
      value,
      unit: unit?.symbol ?? null,
      displayValue,
      displayUnit: displayUnit?.symbol ?? null,
      formatted: displayValue === null ? null : formatNumber(displayValue, displayUnit?.symbol ?? null),
      issues: [...evaluation.issues, ...warnings],
      ...(body.explain
        ? {
            explain: {
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
            },
          }
        : {}),
    };
  }
  return { results };
}

/** Evaluates indicators over loaded aggregates; nested indicators are evaluated once each. */
class Evaluator {
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
