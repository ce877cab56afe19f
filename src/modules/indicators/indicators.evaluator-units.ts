import type { Evaluation, ResultIssue } from '../../expressions/evaluate.ts';
import { roundStored } from '../../lib/numbers.ts';
import { describeDimension, sameDimension, type Term, termOfUnit } from '../units/index.ts';
import { type References, unitOfSymbol } from './indicators.references.ts';
import type { IndicatorRow, ReferencedItem } from './indicators.repository.ts';
import type { ExpressionPart } from './indicators.schemas.ts';
import { isTemplate } from './indicators.sites.ts';

/**
 * The value in the indicator's unit: an expression of the same dimension in another scale
 * (kgCO2e for a tCO2e indicator) is converted. A pure number, an unknown unit or another
 * dimension (an indicator saved before units were checked) is taken as it is.
 */
export function inUnit(
  refs: References,
  row: IndicatorRow,
  evaluation: Evaluation,
  term: Term | null,
): Evaluation {
  const unit = row.unit_id ? refs.units.get(row.unit_id) : undefined;
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
export function unknownTemplateUnits(
  refs: References,
  row: IndicatorRow,
  parts: ExpressionPart[],
  itemOf: (part: ExpressionPart) => ReferencedItem | undefined,
): ResultIssue[] {
  const unit = refs.units.get(row.unit_id!);
  if (!unit) return [];
  const found: ResultIssue[] = [];
  parts.forEach((part, partIndex) => {
    if (part.type !== 'datasetItem' || !isTemplate(part)) return;
    const item = itemOf(part);
    if (!item || unitOfSymbol(refs, item.unit)) return;
    found.push({
      type: 'unknownUnit',
      partIndex,
      key: item.key,
      message: `The coefficient "${item.name}" (key ${item.key}) has ${item.unit ? `the unit "${item.unit}", which is not in the unit catalog` : 'no unit'}: its unit is unknown, so it is neither checked against the indicator's unit (${unit.symbol}) nor converted into it`,
    });
  });
  return found;
}

/** A `unitMismatch` says the indicator's unit (the operand's is `operandUnitSymbol`). */
export function withIndicatorUnit(refs: References, row: IndicatorRow, evaluation: Evaluation): Evaluation {
  if (!evaluation.issues.some((i) => i.type === 'unitMismatch')) return evaluation;
  const symbol = row.unit_id ? (refs.units.get(row.unit_id)?.symbol ?? null) : null;
  return {
    ...evaluation,
    issues: evaluation.issues.map((i) =>
      i.type === 'unitMismatch' ? { ...i, indicatorUnitSymbol: symbol } : i,
    ),
  };
}

/** The most site names a message lists (`siteNames` has them all). */
const NAMED = 20;

/**
 * Site groups whose operand does not convert into their coefficient's input unit: one issue
 * naming every site affected (null: none), with the units each side is in.
 */
export function mismatchOfSites(
  mismatched: { issue: ResultIssue; sites: { id: string; name: string }[] }[],
): ResultIssue | null {
  if (mismatched.length === 0) return null;
  const first = mismatched[0]!.issue;
  const sites = mismatched.flatMap((m) => m.sites);
  const pairs = [
    ...new Set(
      mismatched.map(
        (m) => `${m.issue.operandUnitSymbol} cannot be converted into ${m.issue.inputUnitSymbol}`,
      ),
    ),
  ];
  const names = sites.slice(0, NAMED).map((s) => `"${s.name}"`);
  const more = sites.length > NAMED ? ` and ${sites.length - NAMED} more` : '';
  return {
    ...first,
    message: `${pairs.join('; ')}, for ${sites.length === 1 ? 'the site' : `${sites.length} sites:`} ${names.join(', ')}${more}: the value cannot be computed`,
    inputUnitSymbols: [...new Set(mismatched.map((m) => m.issue.inputUnitSymbol))],
    siteIds: sites.map((s) => s.id),
    siteNames: sites.map((s) => s.name),
  };
}
