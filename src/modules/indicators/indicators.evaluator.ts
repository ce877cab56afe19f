import { dimensionsOf } from '../../expressions/dimensions.ts';
import { type Evaluation, evaluate, type Resolved, type ResultIssue } from '../../expressions/evaluate.ts';
import { roundStored } from '../../lib/numbers.ts';
import { dimensionsOnce } from './indicators.dimensions.ts';
import {
  inUnit,
  mismatchOfSites,
  unknownTemplateUnits,
  withIndicatorUnit,
} from './indicators.evaluator-units.ts';
import type { PerSite } from './indicators.operands.ts';
import { parsedExpression } from './indicators.parsed.ts';
import { findElement, findItem, leafUnits, type References } from './indicators.references.ts';
import type { IndicatorRow } from './indicators.repository.ts';
import type { ExpressionPart } from './indicators.schemas.ts';
import type { Aggregate } from './indicators.scope.ts';
import { isSiteDependent, isTemplate, type SiteGroup, templateRef } from './indicators.sites.ts';

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
  /** Each function applied (per site group when evaluated per site): its inputs and result. */
  functions: unknown[];
}

type Result = { evaluation: Evaluation; explanation: Explanation };

const emptyExplanation = (): Explanation => ({
  operands: [],
  coefficients: [],
  conversions: [],
  nested: [],
  functions: [],
});

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
    const mismatched: { issue: ResultIssue; sites: SiteGroup['sites'] }[] = [];
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
          explanation.functions.push(...groupExplanation.functions);
        }
        // The sites of the group with data (explained aggregates count their sites).
        const withData = Math.max(0, ...[...aggregates.values()].map((a) => a.site_count));
        parts.forEach((part, partIndex) => {
          if (!this.explaining || !isTemplate(part)) return;
          const ref = templateRef(part);
          const key = group.keys.get(ref)!;
          const item = perSite.items.get(`${itemDataset(part)}:${key}`);
          const entry = used.get(`${partIndex}|${key}`);
          if (entry) {
            entry.sitesWithData = (entry.sitesWithData as number) + withData;
            entry.siteCount = entry.sitesWithData;
          } else
            used.set(`${partIndex}|${key}`, {
              partIndex,
              template: part.value,
              key,
              datasetItemId: item?.id ?? null,
              datasetId: item?.dataset_id ?? null,
              year: item?.year ?? null,
              value: item?.value ?? null,
              unit: item?.unit ?? null,
              sitesWithData: withData,
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
      } else if (first?.type === 'unitMismatch') mismatched.push({ issue: first, sites: group.sites });
      else if (first && first.type !== 'noData')
        failure ??= { ...first, siteIds: group.sites.map((s) => s.id) };
    }
    // A unit that does not convert for some groups: one issue naming every site affected.
    failure ??= mismatchOfSites(mismatched);
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
    const dims = dimensionsOnce(this.refs, this.group ? this.perSite!.items : null, this.group, row, () =>
      dimensionsOf(tree, (leaf) => {
        const part = parts[leaf.index]!;
        return leafUnits(
          this.refs,
          part,
          part.type === 'datasetItem' ? itemOf(part) : undefined,
          part.type === 'indicator' ? this.byId.get(part.value) : undefined,
        );
      }),
    );
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
            sitesWithData: aggregate?.site_count ?? 0,
            siteCount: aggregate?.site_count ?? 0,
          });
        return { kind: 'data', value, hasData: (aggregate?.value_count ?? 0) > 0, unit };
      },
      dims.terms,
    );
    const evaluation = withIndicatorUnit(
      this.refs,
      row,
      inUnit(this.refs, row, evaluated, dims.terms.get(tree) ?? null),
    );
    if (this.group && row.unit_id) passed.push(...unknownTemplateUnits(this.refs, row, parts, itemOf));
    return {
      evaluation:
        evaluation.value === null ? evaluation : { ...evaluation, issues: [...evaluation.issues, ...passed] },
      explanation: {
        operands,
        coefficients,
        conversions: evaluation.conversions,
        nested,
        functions: (evaluation.functions ?? []).map((step) =>
          this.group ? { ...step, sites: this.group.sites.map((site) => site.name) } : step,
        ),
      },
    };
  }
}

/** The datasetId of a datasetItem part named by key. */
const itemDataset = (part: ExpressionPart) =>
  (part.metadata as { datasetId?: string } | undefined)?.datasetId ?? '';

/** A sum of group values, rounded like every computed number so that 0.1 + 0.2 is 0.3. */
const roundSum = (value: number) => (value === 0 ? 0 : roundStored(value));

const entries = (e: Explanation) =>
  e.operands.length +
  e.coefficients.length +
  e.conversions.length +
  e.nested.length +
  e.functions.length +
  (e.siteCoefficients?.length ?? 0);

const nestedIds = (e: Explanation) => (e.nested as { indicatorId: string }[]).map((n) => n.indicatorId);
