import { iso } from '../../domain/time.ts';
import type { Evaluation, ResultIssue } from '../../expressions/evaluate.ts';
import { convertValue } from '../units/index.ts';
import type { Explain } from './indicators.explain-schema.ts';
import { listIssues, NO_ISSUE_FIELDS } from './indicators.expression-issues.ts';
import { dimensionProblems, findItem, type References, unknownUnitParts } from './indicators.references.ts';
import type { IndicatorRow } from './indicators.repository.ts';
import type { CurrentValue, ExpressionPart, Indicator, WidgetUsage } from './indicators.schemas.ts';

/** An indicator's row as the repository lists it. */
export const partsOf = (row: IndicatorRow) => row.expression_parts as ExpressionPart[];
const labelOf = (row: IndicatorRow) => row.label ?? row.name;

/** Built once: creating a NumberFormat costs far more than formatting with it (a series formats many). */
const SMALL = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const LARGE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

export function formatNumber(value: number, symbol: string | null): string {
  const abs = Math.abs(value);
  const text = (abs !== 0 && abs < 1 ? SMALL : LARGE).format(value);
  return symbol ? `${text} ${symbol}` : text;
}

const warningsOf = new WeakMap<References, Map<string, ResultIssue[]>>();

/**
 * What is true of an indicator's every value, computed once per request: deleted elements, and
 * parts whose unknown unit leaves the figure unchecked and unconverted (`unknownUnit`).
 */
function unitWarnings(row: IndicatorRow, refs: References): ResultIssue[] {
  let byRow = warningsOf.get(refs);
  if (!byRow) {
    byRow = new Map();
    warningsOf.set(refs, byRow);
  }
  let found = byRow.get(row.id);
  if (!found) {
    const parts = row.expression_parts as ExpressionPart[];
    found = [
      ...listIssues(parts, refs)
        .filter((i) => i.type === 'deletedFormElement')
        .map((i) => ({ type: i.type, message: i.message, partIndex: i.partIndex ?? undefined })),
      ...unknownUnitParts(parts, refs, row.unit_id).map((p) => ({ type: 'unknownUnit', ...p })),
    ];
    byRow.set(row.id, found);
  }
  return found;
}

/** An indicator's evaluation as answered: units, display value, formatting and issues. */
export function presentCurrentValue(
  row: IndicatorRow,
  refs: References,
  evaluation: Evaluation,
  explain?: Record<string, unknown>,
): CurrentValue {
  const unit = row.unit_id ? refs.units.get(row.unit_id) : undefined;
  const display = row.display_unit_id ? refs.units.get(row.display_unit_id) : undefined;
  const displayUnit = display ?? unit;
  const value = evaluation.value;
  const displayValue = value === null ? null : unit && display ? convertValue(value, unit, display) : value;
  const warnings = unitWarnings(row, refs);
  return {
    value,
    unit: unit?.symbol ?? null,
    displayValue,
    displayUnit: displayUnit?.symbol ?? null,
    formatted: displayValue === null ? null : formatNumber(displayValue, displayUnit?.symbol ?? null),
    issues: [...evaluation.issues, ...warnings],
    // Built step by step by the evaluator; its shape is the schema's (checked by the response tests).
    ...(explain ? { explain: explain as Explain } : {}),
  };
}

/** An indicator as the API shows it, from what `presentIndicators` loaded for all at once. */
export function presentIndicator(
  row: IndicatorRow,
  refs: References,
  usedBy: Map<string, IndicatorRow[]>,
  usage: Map<string, WidgetUsage[]>,
  byId: Map<string, IndicatorRow>,
): Indicator {
  const parts = partsOf(row);
  const items = new Map<string, NonNullable<ReturnType<typeof findItem>>>();
  for (const part of parts) {
    const item = part.type === 'datasetItem' ? findItem(refs, part) : undefined;
    if (item) items.set(item.id, item);
  }
  const unit = row.unit_id ? refs.units.get(row.unit_id) : undefined;
  const display = row.display_unit_id ? refs.units.get(row.display_unit_id) : undefined;
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    label: row.label,
    description: row.description,
    unitId: row.unit_id,
    unitName: unit?.name ?? null,
    displayUnitId: row.display_unit_id,
    displayUnitName: display?.name ?? null,
    tags: row.tags,
    preferredDatasetItemName: row.preferred_dataset_item_name,
    preferredDatasetItemDatasetId: row.preferred_dataset_item_dataset_id,
    expressionParts: parts,
    datasetItems: [...items.values()].map((item) => ({
      id: item.id,
      name: item.name,
      datasetId: item.dataset_id,
      datasetName: item.dataset_name,
      year: item.year,
      data: { key: item.key, value: item.value, unit: item.unit },
      inputUnitId: item.input_unit_id,
      inputUnitSymbol: item.input_unit_id ? (refs.units.get(item.input_unit_id)?.symbol ?? null) : null,
    })),
    widgetUsage: widgetUsageOf(row, usage, usedBy, byId),
    issues: [
      ...listIssues(parts, refs, row.unit_id ? (refs.units.get(row.unit_id)?.symbol ?? null) : null),
      // Saved before units were checked: it still computes, but its unit does not add up.
      ...dimensionProblems(parts, refs, row.unit_id, byId).map((p) => ({
        ...NO_ISSUE_FIELDS,
        type: 'dimensionMismatch',
        message: p.message,
        partIndex: p.partIndex,
      })),
      ...unknownUnitParts(parts, refs, row.unit_id, byId).map((p) => ({
        ...NO_ISSUE_FIELDS,
        type: 'unknownUnit',
        message: p.message,
        partIndex: p.partIndex,
      })),
    ],
    _count: { datasets: new Set([...items.values()].map((i) => i.dataset_id)).size },
    indicatorUsage: (usedBy.get(row.id) ?? []).map((r) => ({
      indicatorId: r.id,
      indicatorLabel: labelOf(r),
    })),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** Widgets showing the indicator itself, then those showing an indicator that uses it. */
function widgetUsageOf(
  row: IndicatorRow,
  usage: Map<string, WidgetUsage[]>,
  usedBy: Map<string, IndicatorRow[]>,
  byId: Map<string, IndicatorRow>,
): WidgetUsage[] {
  const direct = (usage.get(row.id) ?? []).map((u) => ({ ...u, isDirect: true }));
  const indirect: WidgetUsage[] = [];
  const seen = new Set([row.id]);
  const stack = [...(usedBy.get(row.id) ?? [])];
  while (stack.length > 0) {
    const user = stack.pop()!;
    if (seen.has(user.id)) continue;
    seen.add(user.id);
    for (const u of usage.get(user.id) ?? [])
      indirect.push({
        ...u,
        isDirect: false,
        viaIndicatorId: user.id,
        viaIndicatorName: user.name,
        viaIndicatorLabel: byId.get(user.id)?.label ?? null,
      });
    stack.push(...(usedBy.get(user.id) ?? []));
  }
  return [...direct, ...indirect];
}
