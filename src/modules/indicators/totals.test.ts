import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createIndicatorWorld, el, type IndicatorWorld } from '../../../test/helpers/indicator-world.ts';
import { coverOf, totalsSource } from './indicators.scope.ts';
import { verifyAllTotals, verifyTotals } from './totals.verify.ts';

const t = useTestApp();
let w: IndicatorWorld;
let elecId: string;

const verify = () => t.database.system((tx) => verifyTotals(tx, w.tenant.organizationId));

/** The stored total of a site's subtree for electricity, 2025, one status and month (its stripes added up). */
const row = async (siteId: string, status: string, month: number) =>
  t.database.system(async (tx) => {
    const r = await sql<{ total: string; value_count: string }>`
      select sum(total)::text as total, sum(value_count)::text as value_count from value_totals
       where organization_id = ${w.tenant.organizationId} and site_id = ${siteId}
         and element_id = ${w.element.elec} and year = 2025 and status = ${status} and period_unit = ${month}
      having count(*) > 0`.execute(tx);
    return r.rows[0] ? { total: Number(r.rows[0].total), count: Number(r.rows[0].value_count) } : null;
  });

/** Current value of the electricity indicator (SUM, kWh) for 2025, read from the totals. */
const elec = async (body: Record<string, unknown> = {}) => {
  const res = await w.values({ indicatorIds: [elecId], year: 2025, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results[elecId].value as number | null;
};

/** The same, computed from the values directly. */
const direct = async (body: Record<string, unknown> = {}) => {
  totalsSource.enabled = false;
  try {
    return await elec(body);
  } finally {
    totalsSource.enabled = true;
  }
};

beforeAll(async () => {
  w = await createIndicatorWorld(t);
  const res = await w.create({ name: 'elec', unitId: w.units['kWh'], expressionParts: [el(w.element.elec)] });
  expect(res.status).toBe(200);
  elecId = res.body.id;
});

describe('coverOf', () => {
  // a ─ b ─ c
  //   └ d
  const tree = [
    { id: 'a', parent_id: null },
    { id: 'b', parent_id: 'a' },
    { id: 'c', parent_id: 'b' },
    { id: 'd', parent_id: 'a' },
    { id: 'e', parent_id: null },
  ];
  it('takes a whole subtree at its top only', () => {
    expect(coverOf(tree, ['a', 'b', 'c', 'd'])).toEqual({ siteIds: ['a'], weights: [1] });
    expect(coverOf(tree, ['b', 'c', 'e'])).toEqual({ siteIds: ['b', 'e'], weights: [1, 1] });
  });
  it('counts a site without its descendants as its subtree minus its children', () => {
    // a alone: a − b − d. a and c: (a − b − d) + c.
    expect(coverOf(tree, ['a'])).toEqual({ siteIds: ['a', 'b', 'd'], weights: [1, -1, -1] });
    const mixed = coverOf(tree, ['a', 'c']);
    expect(Object.fromEntries(mixed.siteIds.map((id, i) => [id, mixed.weights[i]]))).toEqual({
      a: 1,
      b: -1,
      d: -1,
      c: 1,
    });
    // b without c, but with a and d: a − c.
    const noC = coverOf(tree, ['a', 'b', 'd']);
    expect(Object.fromEntries(noC.siteIds.map((id, i) => [id, noC.weights[i]]))).toEqual({ a: 1, c: -1 });
  });
});

describe('value_totals', () => {
  it('holds each subtree’s sums per status and month, equal to the values', async () => {
    const { group, plant1, plant2, line1 } = w.sites;
    // February, COMPLETED: plant 1 200 + line 1 50 (below plant 1) = 250 at the group and at plant 1.
    expect(await row(group, 'COMPLETED', 2)).toEqual({ total: 250, count: 2 });
    expect(await row(plant1, 'COMPLETED', 2)).toEqual({ total: 250, count: 2 });
    expect(await row(line1, 'COMPLETED', 2)).toEqual({ total: 50, count: 1 });
    // January, APPROVED: plant 1 100 + plant 2 1000 = 1100 at the group.
    expect(await row(group, 'APPROVED', 1)).toEqual({ total: 1100, count: 2 });
    expect(await row(plant2, 'APPROVED', 1)).toEqual({ total: 1000, count: 1 });
    expect(await verify()).toEqual([]);
  });

  it('is what current values read, for every site scope', async () => {
    // All 2025 electricity: 100 + 200 + 300 + 400 + 1000 + 50 + 7 = 2057.
    expect(await elec()).toBe(2057);
    // Plant 1 with line 1 below it: 100 + 200 + 300 + 400 + 50 = 1050. Plant 2 and the other site:
    // 1000 + 7 = 1007.
    expect(await elec({ siteIds: [w.sites.plant1] })).toBe(1050);
    expect(await elec({ siteIds: [w.sites.plant2, w.sites.other] })).toBe(1007);
    // Only January and February: 100 + 200 + 1000 + 50 + 7 = 1357; APPROVED only: 1100.
    expect(await elec({ periodUnits: [1, 2] })).toBe(1357);
    expect(await elec({ statuses: ['APPROVED'] })).toBe(1100);
    // A collector sees plant 1 (and what is below it): 1050.
    const mine = await w.values({ indicatorIds: [elecId], year: 2025 }, w.tenant.collector.token);
    expect(mine.body.results[elecId].value).toBe(1050);

    // Proof that the figure comes from the totals: a corrupted row shows, and verify finds it.
    await t.database.system((tx) =>
      // One row: the rows of a key are split over stripes (migration 0042).
      sql`update value_totals set total = total + 1000 where organization_id = ${w.tenant.organizationId}
             and site_id = ${w.tenant.organizationId} and element_id = ${w.element.elec} and year = 2025
             and status = 'COMPLETED' and period_unit = 3
             and stripe = (select min(stripe) from value_totals where organization_id = ${w.tenant.organizationId}
                            and site_id = ${w.tenant.organizationId} and element_id = ${w.element.elec} and year = 2025
                            and status = 'COMPLETED' and period_unit = 3)`.execute(tx),
    );
    // The whole organization reads its own row (migration 0038), whatever its tree; the group's
    // scope reads the group's rows: 2057 but the other top-level site's 7 = 2050.
    expect(await elec()).toBe(3057);
    expect(await elec({ siteIds: [w.sites.group] })).toBe(2050);
    expect(await direct()).toBe(2057);
    const differences = await verify();
    expect(differences).toHaveLength(1);
    expect(differences[0]).toMatchObject({
      siteId: w.tenant.organizationId,
      periodUnit: 3,
      stored: { total: '1300', count: 1 },
      computed: { total: '300', count: 1 },
    });
    const report = await verifyAllTotals(t.database, {
      organizationId: w.tenant.organizationId,
      repair: true,
    });
    expect(report.repaired).toEqual([w.tenant.organizationId]);
    expect(await verify()).toEqual([]);
    expect(await elec()).toBe(2057);
  });

  it('stays exact through reviews, deletions, site moves and form-site changes', async () => {
    const { group, plant1, plant2, line1, other } = w.sites;
    const submit = (siteId: string, values: { elementKey: string; periodUnit: number; value: unknown }[]) =>
      api(t, 'POST', '/form-submissions', {
        token: w.tenant.owner.token,
        body: { formId: w.formId, siteId, year: 2025, values },
      });
    // Plant 1's April 400 deleted: 2057 − 400 = 1657.
    expect((await submit(plant1, [{ elementKey: 'elec', periodUnit: 4, value: null }])).status).toBe(200);
    expect(await elec()).toBe(1657);
    // Line 1's February 50 rejected: no longer among COMPLETED/APPROVED: 1607.
    const line = await submit(line1, [{ elementKey: 'elec', periodUnit: 2, value: 50 }]);
    const lineValue = line.body.values[0].formElementSubmissionId;
    const review = await api(t, 'POST', `/form-submissions/values/${lineValue}/review`, {
      token: w.tenant.owner.token,
      body: { status: 'REJECTED' },
    });
    expect(review.status, JSON.stringify(review.body)).toBe(200);
    expect(await elec()).toBe(1607);
    expect(await elec({ statuses: ['REJECTED'] })).toBe(50);
    // Line 1 moved below plant 2: plant 2's subtree now has its REJECTED 50.
    const moved = await api(t, 'PATCH', `/sites/${line1}`, {
      token: w.tenant.owner.token,
      body: { parentId: plant2 },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(await elec({ siteIds: [plant2], statuses: ['REJECTED'] })).toBe(50);
    expect(await elec({ siteIds: [plant1], statuses: ['REJECTED'] })).toBe(null);
    expect(await row(plant2, 'REJECTED', 2)).toEqual({ total: 50, count: 1 });
    expect(await row(plant1, 'REJECTED', 2)).toEqual({ total: 0, count: 0 });
    // Plant 2's form-site deactivated for 2025: its 1000 leaves the group: 1607 − 1000 = 607.
    const setSites = (siteIds: string[]) =>
      api(t, 'PUT', '/form-sites', {
        token: w.tenant.owner.token,
        body: { formId: w.formId, siteIds, years: [2025] },
      });
    expect((await setSites([group, plant1, line1, other])).status).toBe(200);
    expect(await elec()).toBe(607);
    expect(await direct()).toBe(607);
    expect(await verify()).toEqual([]);
    // And back: 1607.
    expect((await setSites([group, plant1, plant2, line1, other])).status).toBe(200);
    expect(await elec()).toBe(1607);
    expect(await verify()).toEqual([]);
  });
});
