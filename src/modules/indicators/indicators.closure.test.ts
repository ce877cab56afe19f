import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import {
  createIndicatorWorld,
  el,
  type IndicatorWorld,
  num,
  op,
} from '../../../test/helpers/indicator-world.ts';
import { indicatorsRepository } from './indicators.repository.ts';

const t = useTestApp();
let w: IndicatorWorld;
const ids: Record<string, string> = {};
const ind = (name: string) => ({ type: 'indicator', value: ids[name]! });

beforeAll(async () => {
  w = await createIndicatorWorld(t);
  const make = async (name: string, expressionParts: unknown[]) => {
    const res = await w.create({ name, expressionParts });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids[name] = res.body.id;
  };
  await make('elec', [el(w.element.elec)]);
  await make('head', [el(w.element.head)]);
  await make('double', [ind('elec'), op('*'), num('2')]);
  await make('per head', [ind('double'), op('/'), ind('head'), op('+'), ind('elec')]);
  await make('unrelated', [el(w.element.gas)]);
}, 60_000);

describe('the indicators an evaluation reads', () => {
  it('are the ones asked for and those they use, through every level, and no other', async () => {
    const names = async (asked: string[]) => {
      const rows = await t.database.tenant(w.tenant.organizationId, (tx) =>
        indicatorsRepository.closure(
          tx,
          w.tenant.organizationId,
          asked.map((n) => ids[n]!),
        ),
      );
      return rows.map((r) => r.name).sort();
    };
    expect(await names(['per head'])).toEqual(['double', 'elec', 'head', 'per head']);
    expect(await names(['double'])).toEqual(['double', 'elec']);
    expect(await names(['unrelated', 'head'])).toEqual(['head', 'unrelated']);
    expect(await names([])).toEqual([]);
  });

  it('evaluates a two-level indicator from them: (2 × electricity) ÷ headcount + electricity', async () => {
    // Plant 1 alone, 2025 (the world's table): electricity 100 + 200 + 300 + 400 + line 1's 50 = 1,050 kWh
    // (COMPLETED and APPROVED both count by default); headcount LAST = 12 (plant 1's March).
    const res = await w.values({ indicatorIds: [ids['per head']], year: 2025, siteIds: [w.sites.plant1] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const result = res.body.results[ids['per head']!];
    expect(result.value).toBeCloseTo((2 * 1050) / 12 + 1050, 9);
  });
});
