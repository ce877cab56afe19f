import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Turns } from '../../lib/turns.ts';
import { canonicalHash, canonicalHashCooperative } from './canonical.ts';

describe('canonicalHashCooperative', () => {
  it('gives canonicalHash of any JSON value, keys in any order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        expect(await canonicalHashCooperative(value)).toBe(canonicalHash(value));
      }),
      { numRuns: 300 },
    );
  });

  it('gives canonicalHash of values JSON leaves out or writes as null', async () => {
    const value = {
      b: [undefined, () => 1, Symbol('s'), Number.NaN, new Date(0), { z: 1, a: undefined }],
      a: undefined,
      c: { y: [], x: {} },
    };
    expect(await canonicalHashCooperative(value)).toBe(canonicalHash(value));
  });

  it('gives the loop turns while it hashes a 10,000-row body, and the same hash', async () => {
    const body = {
      sheets: [
        {
          name: 'Values',
          rows: Array.from({ length: 10_000 }, (_, i) => ({
            Site: `S${i % 10}`,
            Amount: i / 7,
            Unit: 'kWh',
          })),
        },
      ],
      mode: 'execute',
    };
    // A budget of 1 ms on a body that takes longer: other callbacks run before the hash is done.
    let ranBetween = 0;
    const others = setInterval(() => ranBetween++, 0);
    const started = performance.now();
    const hash = await canonicalHashCooperative(body, new Turns(1));
    const took = performance.now() - started;
    clearInterval(others);
    expect(hash).toBe(canonicalHash(body));
    if (took > 5) expect(ranBetween).toBeGreaterThan(0);
  });
});
