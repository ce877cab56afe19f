import { describe, expect, it } from 'vitest';
import { Evaluator, EXPLAIN_LIMIT } from './indicators.evaluator.ts';
import type { References } from './indicators.references.ts';
import type { IndicatorRow as Row } from './indicators.repository.ts';

const refs: References = {
  elements: new Map(),
  activities: new Map(),
  itemsById: new Map(),
  itemsByKey: new Map(),
  units: new Map(),
};

/** An indicator row as stored (only what the evaluation reads). */
const row = (id: string, parts: { type: string; value: string }[]) =>
  ({ id, name: id, unit_id: null, expression_parts: parts }) as unknown as Row;

/** `count` references to `id`, added up. */
const repeated = (id: string, count: number) =>
  Array.from({ length: count }, (_, i) => [
    ...(i === 0 ? [] : [{ type: 'operator', value: '+' }]),
    { type: 'indicator', value: id },
  ]).flat();

describe('the size bound of explain', () => {
  it('replaces an explanation past the limit by an issue, and still answers the value', () => {
    // A chain F0 ← F1 ← … ← F120, each F(i) = F(i-1) + F(i-1) (2 references): 2^120 in value,
    // 120 × 2 nested references (+ 120 indicators) to list: under the limit.
    const byId = new Map<string, Row>([['F0', row('F0', [{ type: 'number', value: '1' }])]]);
    for (let i = 1; i <= 120; i++) byId.set(`F${i}`, row(`F${i}`, repeated(`F${i - 1}`, 2)));
    const small = new Evaluator(byId, refs, new Map(), true).run(byId.get('F120')!, []);
    expect(small.evaluation.value).toBe(2 ** 120);
    expect(Object.keys(small.explain.indicators as object)).toHaveLength(120);

    // 120 indicators of 200 references each: 24,000 entries, over the limit of 20,000.
    for (let i = 1; i <= 120; i++) byId.set(`F${i}`, row(`F${i}`, repeated(`F${i - 1}`, 200)));
    const big = new Evaluator(byId, refs, new Map(), true).run(byId.get('F120')!, []);
    expect(EXPLAIN_LIMIT).toBeLessThan(120 * 200);
    expect(big.explain).toMatchObject({ truncated: true, issues: [{ type: 'explainTooLarge' }] });
    // The value is still answered: 200^120 ≈ 1.33e276 (added up 200 at a time, so not bit-exact).
    expect(big.evaluation.issues).toEqual([]);
    expect(big.evaluation.value! / 200 ** 120).toBeCloseTo(1, 12);
  });
});
