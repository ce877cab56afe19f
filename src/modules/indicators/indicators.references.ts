import type { Tx } from '../../db/client.ts';
import { dimensionsOf, type LeafUnits } from '../../expressions/dimensions.ts';
import { type Node, parseExpression } from '../../expressions/parse.ts';
import { isUuid } from '../../lib/ids.ts';
import { describeDimension, divide, sameDimension, termOfUnit, type UnitFactor } from '../units/index.ts';
import {
  type ReferencedElement,
  type ReferencedItem,
  indicatorsRepository as repo,
} from './indicators.repository.ts';
import type { ExpressionPart } from './indicators.schemas.ts';
import { isTemplate } from './indicators.sites.ts';

export interface ReferencedUnit extends UnitFactor {
  name: string;
}

/** Everything the expressions of some indicators name, loaded with a fixed number of queries. */
export interface References {
  elements: Map<string, ReferencedElement>;
  /** ACTIVITY elements by `formId:key` (a live one before a deleted one). */
  activities: Map<string, ReferencedElement>;
  itemsById: Map<string, ReferencedItem>;
  /** Coefficients by `datasetId:key`. */
  itemsByKey: Map<string, ReferencedItem>;
  units: Map<string, ReferencedUnit>;
}

/** How a datasetItem part names its coefficient: `{datasetId}` in metadata means by key. */
export function itemRef(part: ExpressionPart): { id: string } | { datasetId: string; key: string } {
  const datasetId = (part.metadata as { datasetId?: unknown } | null | undefined)?.datasetId;
  return typeof datasetId === 'string' ? { datasetId, key: part.value } : { id: part.value };
}

export function findItem(refs: References, part: ExpressionPart): ReferencedItem | undefined {
  const ref = itemRef(part);
  return 'id' in ref ? refs.itemsById.get(ref.id) : refs.itemsByKey.get(`${ref.datasetId}:${ref.key}`);
}

export function findElement(refs: References, part: ExpressionPart): ReferencedElement | undefined {
  return part.type === 'formElement' ? refs.elements.get(part.value) : refs.activities.get(part.value);
}

/**
 * Loads the elements, coefficients and units that the given expressions name (four queries).
 * Coefficients named by key take their latest year not after `maxYear`.
 */
export async function loadReferences(
  tx: Tx,
  organizationId: string,
  expressions: ExpressionPart[][],
  maxYear: number | null = null,
): Promise<References> {
  const elementIds = new Set<string>();
  const activityRefs = new Set<string>();
  const itemIds = new Set<string>();
  const keyRefs = new Map<string, { datasetId: string; key: string }>();
  for (const part of expressions.flat()) {
    if (part.type === 'formElement' && isUuid(part.value)) elementIds.add(part.value);
    else if (part.type === 'activity') activityRefs.add(part.value);
    else if (part.type === 'datasetItem') {
      const ref = itemRef(part);
      if ('id' in ref) {
        if (isUuid(ref.id)) itemIds.add(ref.id);
      } else if (isUuid(ref.datasetId) && !isTemplate(part)) keyRefs.set(`${ref.datasetId}:${ref.key}`, ref);
    }
  }
  const [elements, items, units] = await Promise.all([
    repo.elements(tx, organizationId, [...elementIds], [...activityRefs]),
    repo.items(tx, [...itemIds], [...keyRefs.values()], maxYear),
    repo.units(tx, organizationId),
  ]);
  const refs: References = {
    elements: new Map(),
    activities: new Map(),
    itemsById: new Map(),
    itemsByKey: new Map(),
    units: new Map(units.map((u) => [u.id, u])),
  };
  for (const e of elements) {
    if (elementIds.has(e.id)) refs.elements.set(e.id, e);
    const ref = `${e.form_id}:${e.key}`;
    if (e.type === 'ACTIVITY' && activityRefs.has(ref) && !refs.activities.has(ref))
      refs.activities.set(ref, e);
  }
  for (const item of items) {
    if (itemIds.has(item.id)) refs.itemsById.set(item.id, item);
    const key = `${item.dataset_id}:${item.key}`;
    if (keyRefs.has(key)) refs.itemsByKey.set(key, item);
  }
  return refs;
}

const bySymbol = new WeakMap<References, Map<string, ReferencedUnit>>();

/** A unit the organization sees, by symbol (a coefficient names its unit by symbol). */
export function unitOfSymbol(refs: References, symbol: string | null): ReferencedUnit | undefined {
  if (!symbol) return undefined;
  let map = bySymbol.get(refs);
  if (!map) {
    map = new Map([...refs.units.values()].map((u) => [u.symbol, u]));
    bySymbol.set(refs, map);
  }
  return map.get(symbol);
}

/** What one part contributes to the expression's unit (see expressions/dimensions.ts). */
export function leafUnits(
  refs: References,
  part: ExpressionPart,
  item: ReferencedItem | undefined,
  indicator: { name: string; unit_id: string | null } | undefined,
): LeafUnits {
  if (part.type === 'datasetItem') {
    const unit = unitOfSymbol(refs, item?.unit ?? null);
    const input = item?.input_unit_id ? refs.units.get(item.input_unit_id) : undefined;
    if (!unit)
      return { kind: 'coefficient', term: null, inputUnit: input ?? null, words: item?.name ?? part.value };
    return {
      kind: 'coefficient',
      term: input ? divide(termOfUnit(unit), termOfUnit(input)) : termOfUnit(unit),
      inputUnit: input ?? null,
      words: input ? `${unit.symbol} per ${input.symbol}` : `${unit.symbol} (no input unit)`,
    };
  }
  if (part.type === 'indicator') {
    const unit = indicator?.unit_id ? refs.units.get(indicator.unit_id) : undefined;
    return {
      kind: 'nested',
      term: unit ? termOfUnit(unit) : null,
      words: unit ? `"${indicator!.name}" (${unit.symbol})` : `"${indicator?.name ?? part.value}"`,
    };
  }
  const element = findElement(refs, part);
  const unitId = element?.unit_id ?? null;
  const unit = unitId ? refs.units.get(unitId) : undefined;
  return {
    kind: 'data',
    term: unit ? termOfUnit(unit) : null,
    unit: unit ?? null,
    words: unit ? unit.symbol : `"${element?.label ?? part.value}" (no unit)`,
  };
}

/**
 * The dimensional analysis of an expression against the indicator's unit: `+`/`-` of different
 * dimensions, and a result whose dimension is not the unit's. Each problem names a part.
 */
export function dimensionProblems(
  parts: ExpressionPart[],
  refs: References,
  unitId: string | null,
  indicators: Map<string, { name: string; unit_id: string | null }>,
  /** A coefficient for a key with placeholders (one it can resolve to); none by default. */
  templateItem: (index: number) => ReferencedItem | undefined = () => undefined,
): { partIndex: number; message: string }[] {
  let tree: Node;
  try {
    tree = parseExpression(parts);
  } catch {
    return [];
  }
  const dims = dimensionsOf(tree, (leaf) => {
    const part = parts[leaf.index]!;
    const item =
      part.type !== 'datasetItem'
        ? undefined
        : isTemplate(part)
          ? templateItem(leaf.index)
          : findItem(refs, part);
    return leafUnits(refs, part, item, part.type === 'indicator' ? indicators.get(part.value) : undefined);
  });
  const problems = [...dims.problems];
  const unit = unitId ? refs.units.get(unitId) : undefined;
  const term = dims.terms.get(tree);
  if (unit && term && problems.length === 0) {
    const wanted = termOfUnit(unit);
    if (!sameDimension(term.dimension, wanted.dimension))
      problems.push({
        partIndex: tree.index,
        message: `${dims.words.get(tree)} is ${describeDimension(term.dimension)}, the indicator is ${describeDimension(wanted.dimension)} (${unit.symbol})`,
      });
  }
  return problems;
}

/**
 * The parts whose unit is unknown in an indicator that has a unit: an element or activity without
 * unit, a coefficient without unit or whose unit symbol is not in the catalog, a nested indicator
 * without unit. Such a part is neither checked against the indicator's unit nor converted into it,
 * so the figure may be in another scale than it says: each one is reported, naming the part.
 * Placeholder keys are resolved per site and left out here; deleted elements and missing
 * coefficients have issues of their own.
 */
export function unknownUnitParts(
  parts: ExpressionPart[],
  refs: References,
  unitId: string | null,
  indicators?: Map<string, { name: string; unit_id: string | null }>,
): { partIndex: number; message: string }[] {
  const unit = unitId ? refs.units.get(unitId) : undefined;
  if (!unit) return [];
  const found: { partIndex: number; message: string }[] = [];
  const tail = `: its unit is unknown, so it is neither checked against the indicator's unit (${unit.symbol}) nor converted into it`;
  parts.forEach((part, i) => {
    if (part.type === 'formElement' || part.type === 'activity') {
      const element = findElement(refs, part);
      if (element && !element.deleted && !(element.unit_id && refs.units.has(element.unit_id)))
        found.push({
          partIndex: i,
          message: `${part.type === 'activity' ? 'The activity' : 'The element'} "${element.label}" has no unit${tail}`,
        });
    } else if (part.type === 'datasetItem' && !isTemplate(part)) {
      const item = findItem(refs, part);
      if (item && !unitOfSymbol(refs, item.unit))
        found.push({
          partIndex: i,
          message: item.unit
            ? `The coefficient "${item.name}" has the unit "${item.unit}", which is not in the unit catalog${tail}`
            : `The coefficient "${item.name}" has no unit${tail}`,
        });
    } else if (part.type === 'indicator' && indicators) {
      const nested = indicators.get(part.value);
      if (nested && !(nested.unit_id && refs.units.has(nested.unit_id)))
        found.push({ partIndex: i, message: `The indicator "${nested.name}" has no unit${tail}` });
    }
  });
  return found;
}

/** The indicator ids an expression uses directly. */
export function usedIndicators(parts: ExpressionPart[]): string[] {
  return parts.filter((p) => p.type === 'indicator').map((p) => p.value);
}
