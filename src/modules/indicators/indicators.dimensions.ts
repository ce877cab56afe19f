/** Per-expression memos of the evaluation: its parse tree, and its units per request and site group. */
import type { Dimensions } from '../../expressions/dimensions.ts';
import type { References } from './indicators.references.ts';
import type { IndicatorRow } from './indicators.repository.ts';
import type { SiteGroup } from './indicators.sites.ts';

/**
 * An expression's units, once per request (its references), set of coefficients and site group:
 * a series evaluates each indicator once per period and per group, always with the same units.
 */
const memo = new WeakMap<References, WeakMap<object, Map<string, Dimensions>>>();

export function dimensionsOnce(
  refs: References,
  items: object | null,
  group: SiteGroup | null,
  row: IndicatorRow,
  compute: () => Dimensions,
): Dimensions {
  let byItems = memo.get(refs);
  if (!byItems) {
    byItems = new WeakMap();
    memo.set(refs, byItems);
  }
  const scope = items ?? refs;
  let byRow = byItems.get(scope);
  if (!byRow) {
    byRow = new Map();
    byItems.set(scope, byRow);
  }
  const key = `${row.id}|${group?.id ?? ''}`;
  let dims = byRow.get(key);
  if (!dims) {
    dims = compute();
    byRow.set(key, dims);
  }
  return dims;
}
