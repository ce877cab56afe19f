import fc from 'fast-check';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createDatasetItem } from '../../../test/helpers/factories.ts';
import { createIndicatorWorld, el, type IndicatorWorld, op } from '../../../test/helpers/indicator-world.ts';
import { totalsSource } from './indicators.scope.ts';
import { indicatorSeries } from './indicators.series.ts';
import { verifyStats, verifyTotals } from './totals.verify.ts';

// Random sequences of writes (values submitted and deleted, reviews, sites moved in the tree,
// form-sites activated and deactivated, the organization's default statuses changed) on the
// indicator world; after each sequence the stored totals and per-site statistics equal the ones
// recomputed from the values, and every indicator (SUM, LAST and AVERAGE operands), in every
// scope, has the same answer read from them as computed directly from the values.

const t = useTestApp();
let w: IndicatorWorld;
const indicators: Record<string, string> = {};
type SiteName = keyof IndicatorWorld['sites'];
const SITES: SiteName[] = ['group', 'plant1', 'plant2', 'line1', 'other'];

beforeAll(async () => {
  w = await createIndicatorWorld(t);
  const make = async (name: string, body: Record<string, unknown>) => {
    const res = await w.create({ name, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    indicators[name] = res.body.id;
  };
  await make('elec', { unitId: w.units['kWh'], expressionParts: [el(w.element.elec)] });
  await make('area', { expressionParts: [el(w.element.area)] });
  await make('head', { expressionParts: [el(w.element.head)] });
  await make('perHead', { expressionParts: [el(w.element.elec), op('/'), el(w.element.head)] });
  await make('scope2', {
    unitId: w.units['kgCO2e'],
    expressionParts: [el(w.element.elec), op('*'), w.gridKey],
  });
  // Per-site factors: the group is in DE (plant 1, plant 2 and line 1 inherit it unless moved
  // out), plant 2 in FR; the other site has no country (its data is left out, with an issue).
  for (const [site, country] of [
    ['group', 'DE'],
    ['plant2', 'FR'],
  ] as const) {
    const res = await api(t, 'PATCH', `/sites/${w.sites[site]}`, {
      token: w.tenant.owner.token,
      body: { metadata: { country } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  for (const [key, value] of [
    ['grid_DE', 0.4],
    ['grid_FR', 0.05],
  ] as const)
    await createDatasetItem(t, w.tenant.organizationId, w.datasetId, {
      key,
      name: key,
      value,
      year: 2025,
      unit: 'kgCO2e',
      inputUnitId: w.units['kWh'],
    });
  await make('scope2Local', {
    unitId: w.units['kgCO2e'],
    expressionParts: [
      el(w.element.elec),
      op('*'),
      { type: 'datasetItem', value: 'grid_{site.metadata.country}', metadata: { datasetId: w.datasetId } },
    ],
  });
  await make('energy', {
    unitId: w.units['kWh'],
    expressionParts: [el(w.element.elec), op('+'), el(w.element.gas)],
  });
}, 120_000);

type Op =
  | { kind: 'submit'; site: SiteName; key: string; month: number; year: number; value: number | null }
  | { kind: 'review'; pick: number; status: 'APPROVED' | 'REJECTED' }
  | { kind: 'move'; site: SiteName; parent: SiteName | null }
  | { kind: 'formSites'; year: number; sites: SiteName[] }
  | { kind: 'statuses'; statuses: ('COMPLETED' | 'APPROVED' | 'REJECTED')[] };

const site = fc.constantFrom(...SITES);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('submit' as const),
      site,
      key: fc.constantFrom('elec', 'head', 'area', 'gas'),
      month: fc.integer({ min: 1, max: 4 }),
      year: fc.constantFrom(2024, 2025),
      // Cents, some negative; one in six a deletion.
      value: fc.option(
        fc.integer({ min: -50_000, max: 500_000 }).map((n) => n / 100),
        { nil: null, freq: 6 },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('review' as const),
      pick: fc.nat(),
      status: fc.constantFrom('APPROVED' as const, 'REJECTED' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      site,
      parent: fc.option(site, { nil: null }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('formSites' as const),
      year: fc.constantFrom(2024, 2025),
      sites: fc.subarray(SITES),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('statuses' as const),
      statuses: fc.subarray(['COMPLETED', 'APPROVED', 'REJECTED'] as const, { minLength: 1 }),
    }),
  },
);

async function apply(o: Op): Promise<void> {
  const token = w.tenant.owner.token;
  let res: { status: number; body: unknown };
  if (o.kind === 'submit') {
    res = await api(t, 'POST', '/form-submissions', {
      token,
      body: {
        formId: w.formId,
        siteId: w.sites[o.site],
        year: o.year,
        values: [{ elementKey: o.key, periodUnit: o.month, value: o.value }],
      },
    });
  } else if (o.kind === 'review') {
    const ids = await t.database.system(async (tx) => {
      const r = await sql<{ id: string }>`
        select id from form_element_submissions
         where organization_id = ${w.tenant.organizationId} and deleted_at is null order by id`.execute(tx);
      return r.rows.map((x) => x.id);
    });
    if (ids.length === 0) return;
    res = await api(t, 'POST', `/form-submissions/values/${ids[o.pick % ids.length]}/review`, {
      token,
      body: { status: o.status },
    });
  } else if (o.kind === 'move') {
    res = await api(t, 'PATCH', `/sites/${w.sites[o.site]}`, {
      token,
      body: { parentId: o.parent === null ? null : w.sites[o.parent] },
    });
  } else if (o.kind === 'statuses') {
    res = await api(t, 'PATCH', '/organizations/current', {
      token,
      body: { defaultStatuses: o.statuses },
    });
  } else {
    res = await api(t, 'PUT', '/form-sites', {
      token,
      body: { formId: w.formId, siteIds: o.sites.map((s) => w.sites[s]), years: [o.year] },
    });
  }
  // Refusals (a cycle in the tree, a submission to an inactive form-site) are fine; never a 500.
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
}

/** Current values and a monthly series of every indicator, read from the totals or not. */
async function answers(useTotals: boolean) {
  totalsSource.enabled = useTotals;
  try {
    const ids = Object.values(indicators);
    const scopes: Record<string, unknown>[] = [
      {},
      { siteIds: [w.sites.group] },
      { siteIds: [w.sites.plant1] },
      { siteIds: [w.sites.plant2, w.sites.other] },
      { siteIds: [w.sites.line1] },
      { statuses: ['APPROVED'] },
      { statuses: ['REJECTED', 'COMPLETED'], periodUnits: [2, 3] },
      { startYear: 2024, endYear: 2025 },
    ];
    const out: unknown[] = [];
    for (const scope of scopes) {
      const res = await w.values({
        indicatorIds: ids,
        ...('startYear' in scope ? {} : { year: 2025 }),
        ...scope,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      out.push(res.body.results);
    }
    const collector = await w.values({ indicatorIds: ids, year: 2025 }, w.tenant.collector.token);
    out.push(collector.status === 200 ? collector.body.results : collector.status);
    const bySite = [
      [w.sites.plant1, w.sites.plant2],
      [w.sites.group, w.sites.other, w.sites.line1],
    ];
    // One year (the scopes the per-site statistics serve) and two (the values).
    for (const siteIds of bySite)
      for (const [fromYear, toYear, grouping] of [
        [2025, 2025, 'MONTHLY'],
        [2025, 2025, 'TOTAL'],
      ] as const)
        out.push(
          await t.database.tenant(w.tenant.organizationId, (tx) =>
            indicatorSeries(
              tx,
              { organizationId: w.tenant.organizationId },
              { indicatorIds: ids, siteIds, bySite: true, fromYear, toYear, grouping },
              new Date('2026-06-01T00:00:00Z'),
            ),
          ),
        );
    for (const grouping of ['MONTHLY', 'YEARLY'] as const)
      out.push(
        await t.database.tenant(w.tenant.organizationId, (tx) =>
          indicatorSeries(
            tx,
            { organizationId: w.tenant.organizationId },
            { indicatorIds: ids, siteIds: [w.sites.plant1], fromYear: 2025, toYear: 2025, grouping },
            new Date('2026-06-01T00:00:00Z'),
          ),
        ),
      );
    for (const siteIds of bySite)
      out.push(
        await t.database.tenant(w.tenant.organizationId, (tx) =>
          indicatorSeries(
            tx,
            { organizationId: w.tenant.organizationId },
            { indicatorIds: ids, siteIds, bySite: true, fromYear: 2024, toYear: 2025, grouping: 'QUARTERLY' },
            new Date('2026-06-01T00:00:00Z'),
          ),
        ),
      );
    for (const grouping of ['MONTHLY', 'QUARTERLY', 'YEARLY'] as const)
      out.push(
        await t.database.tenant(w.tenant.organizationId, (tx) =>
          indicatorSeries(
            tx,
            { organizationId: w.tenant.organizationId },
            { indicatorIds: ids, fromYear: 2024, toYear: 2025, grouping },
            new Date('2026-06-01T00:00:00Z'),
          ),
        ),
      );
    return out;
  } finally {
    totalsSource.enabled = true;
  }
}

/**
 * Equal, except that numbers may differ by float rounding (relative 1e-12): the direct
 * computation adds doubles in whatever order it reads them (0.1 + 0.2 gives
 * 0.30000000000000004), the totals add exact decimals (0.3). Anything more is a wrong figure.
 */
function expectSame(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof actual === 'number' && typeof expected === 'number') {
    const scale = Math.max(Math.abs(actual), Math.abs(expected), 1e-300);
    if (Math.abs(actual - expected) / scale > 1e-12) expect(actual, path).toBe(expected);
    return;
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    expect(actual.length, path).toBe(expected.length);
    for (const [i, a] of actual.entries()) expectSame(a, expected[i], `${path}[${i}]`);
    return;
  }
  if (actual && expected && typeof actual === 'object' && typeof expected === 'object') {
    expect(Object.keys(actual).sort(), path).toEqual(Object.keys(expected).sort());
    // A display value a rounding apart may format differently at a half (1.575 → "1.58", the
    // direct 1.5749999999999997 → "1.57"): the text is compared when the numbers are identical.
    const a = actual as Record<string, unknown>;
    const skip =
      'formatted' in a && a['displayValue'] !== (expected as Record<string, unknown>)['displayValue'];
    for (const k of Object.keys(actual).filter((key) => !(skip && key === 'formatted')))
      expectSame(
        (actual as Record<string, unknown>)[k],
        (expected as Record<string, unknown>)[k],
        `${path}.${k}`,
      );
    return;
  }
  expect(actual, path).toEqual(expected);
}

describe('pre-aggregated totals (property)', () => {
  it('equal the direct computation after any sequence of writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 10 }), async (ops) => {
        for (const o of ops) await apply(o);
        expect(await t.database.system((tx) => verifyTotals(tx, w.tenant.organizationId))).toEqual([]);
        expect(await t.database.system((tx) => verifyStats(tx, w.tenant.organizationId))).toEqual([]);
        expectSame(await answers(true), await answers(false));
      }),
      { numRuns: 15 },
    );
  }, 600_000);
});
