import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createIndicatorWorld, el, type IndicatorWorld } from '../../../test/helpers/indicator-world.ts';
import { totalsSource } from './indicators.scope.ts';
import { indicatorSeries } from './indicators.series.ts';
import { rebuildTotals, verifyStats } from './totals.verify.ts';

// The per-site statistics (migration 0033) that LAST and AVERAGE operands read: figures worked
// out by hand from the indicator world (headcount LAST: plant 1 January 10, March 12; plant 2
// February 5. Floor area AVERAGE: plant 1 January 100, February 200), kept exact through writes,
// and proven to be what is read.

const t = useTestApp();
let w: IndicatorWorld;
let headId: string;
let areaId: string;

const verify = () => t.database.system((tx) => verifyStats(tx, w.tenant.organizationId));

beforeAll(async () => {
  w = await createIndicatorWorld(t);
  const head = await w.create({ name: 'head', expressionParts: [el(w.element.head)] });
  const area = await w.create({ name: 'area', expressionParts: [el(w.element.area)] });
  expect(head.status).toBe(200);
  expect(area.status).toBe(200);
  headId = head.body.id;
  areaId = area.body.id;
});

/** Current values of headcount and floor area for 2025. */
const current = async (body: Record<string, unknown> = {}) => {
  const res = await w.values({ indicatorIds: [headId, areaId], year: 2025, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { head: res.body.results[headId].value, area: res.body.results[areaId].value };
};

/** The same, computed from the values directly. */
const direct = async (body: Record<string, unknown> = {}) => {
  totalsSource.enabled = false;
  try {
    return await current(body);
  } finally {
    totalsSource.enabled = true;
  }
};

const submit = (siteId: string, values: { elementKey: string; periodUnit: number; value: unknown }[]) =>
  api(t, 'POST', '/form-submissions', {
    token: w.tenant.owner.token,
    body: { formId: w.formId, siteId, year: 2025, values },
  });

describe('LAST and AVERAGE from the per-site statistics', () => {
  it('answer each site’s latest value and mean, added up across sites', async () => {
    expect(await verify()).toEqual([]);
    // Headcount: plant 1's latest (March) 12 + plant 2's 5 = 17. Area: plant 1's mean 150.
    expect(await current()).toEqual({ head: 17, area: 150 });
    expect(await current({ siteIds: [w.sites.plant1] })).toEqual({ head: 12, area: 150 });
    expect(await current({ siteIds: [w.sites.plant2] })).toEqual({ head: 5, area: null });
    // The group's scope takes its descendants; the other site has neither.
    expect(await current({ siteIds: [w.sites.group] })).toEqual({ head: 17, area: 150 });
    expect(await current({ siteIds: [w.sites.other] })).toEqual({ head: null, area: null });
    // Per month: January 10, February 5 (plant 2), March 12; area January 100, February 200.
    const series = await t.database.tenant(w.tenant.organizationId, (tx) =>
      indicatorSeries(
        tx,
        { organizationId: w.tenant.organizationId },
        { indicatorIds: [headId, areaId], fromYear: 2025, toYear: 2025, grouping: 'MONTHLY' },
        new Date('2026-06-01T00:00:00Z'),
      ),
    );
    const points = (id: string) =>
      Object.fromEntries(
        series
          .find((r) => r.indicatorId === id)!
          .points.filter((p) => p.value.value !== null)
          .map((p) => [p.period, p.value.value]),
      );
    expect(points(headId)).toEqual({ '2025-01': 10, '2025-02': 5, '2025-03': 12 });
    expect(points(areaId)).toEqual({ '2025-01': 100, '2025-02': 200 });
    expect(series.find((r) => r.indicatorId === headId)!.total.value).toBe(17);
  });

  it('are what is read (a corrupted row shows, verify finds it, a rebuild repairs it)', async () => {
    await t.database.system((tx) =>
      // One row: the subtree rows of a key are split over stripes (migration 0042).
      sql`update value_subtree_stats set last_sum = last_sum + 100
           where organization_id = ${w.tenant.organizationId} and site_id = ${w.tenant.organizationId}
             and element_id = ${w.element.head} and year = 2025 and period_unit = 0
             and stripe = (select min(stripe) from value_subtree_stats
                            where organization_id = ${w.tenant.organizationId} and site_id = ${w.tenant.organizationId}
                              and element_id = ${w.element.head} and year = 2025 and period_unit = 0)`.execute(
        tx,
      ),
    );
    // The whole organization reads its own row (migration 0038); the group's scope its own.
    expect((await current()).head).toBe(117);
    expect((await current({ siteIds: [w.sites.group] })).head).toBe(17);
    expect((await direct()).head).toBe(17);
    // A scope the statistics do not serve (other statuses) reads the values.
    expect(await current({ statuses: ['COMPLETED', 'APPROVED', 'REJECTED'] })).toEqual({
      head: 17,
      area: 150,
    });
    const differences = await verify();
    expect(differences).toHaveLength(1);
    expect(differences[0]).toMatchObject({
      table: 'subtree',
      siteId: w.tenant.organizationId,
      periodUnit: 0,
    });
    await t.database.system((tx) => rebuildTotals(tx, w.tenant.organizationId));
    expect(await verify()).toEqual([]);
    expect((await current()).head).toBe(17);
  });

  it('stay exact through writes, reviews, site moves, form-sites and default statuses', async () => {
    const { group, plant1, plant2, line1, other } = w.sites;
    // Line 1 (below plant 1) reports a headcount of 3 in April: plant 1's subtree 12 + 3 = 15.
    const line = await submit(line1, [{ elementKey: 'head', periodUnit: 4, value: 3 }]);
    expect(line.status, JSON.stringify(line.body)).toBe(200);
    expect(await current()).toEqual({ head: 20, area: 150 });
    expect((await current({ siteIds: [plant1] })).head).toBe(15);
    // Plant 1's March headcount deleted: its latest is January's 10. Area February 200 → 300.
    const p1 = await submit(plant1, [
      { elementKey: 'head', periodUnit: 3, value: null },
      { elementKey: 'area', periodUnit: 2, value: 300 },
    ]);
    expect(p1.status, JSON.stringify(p1.body)).toBe(200);
    expect(await current()).toEqual({ head: 18, area: 200 });
    // Line 1's headcount rejected: no longer counted.
    const review = await api(
      t,
      'POST',
      `/form-submissions/values/${line.body.values[0].formElementSubmissionId}/review`,
      {
        token: w.tenant.owner.token,
        body: { status: 'REJECTED' },
      },
    );
    expect(review.status, JSON.stringify(review.body)).toBe(200);
    expect((await current()).head).toBe(15);
    // Approved again, then line 1 moved below plant 2: plant 2's subtree 5 + 3 = 8, plant 1's 10.
    await api(t, 'POST', `/form-submissions/values/${line.body.values[0].formElementSubmissionId}/review`, {
      token: w.tenant.owner.token,
      body: { status: 'APPROVED' },
    });
    const moved = await api(t, 'PATCH', `/sites/${line1}`, {
      token: w.tenant.owner.token,
      body: { parentId: plant2 },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect((await current({ siteIds: [plant2] })).head).toBe(8);
    expect((await current({ siteIds: [plant1] })).head).toBe(10);
    // Plant 2's form-site deactivated for 2025: 10 + 3 = 13; and back: 18.
    const setSites = (siteIds: string[]) =>
      api(t, 'PUT', '/form-sites', {
        token: w.tenant.owner.token,
        body: { formId: w.formId, siteIds, years: [2025] },
      });
    expect((await setSites([group, plant1, line1, other])).status).toBe(200);
    expect((await current()).head).toBe(13);
    expect(await verify()).toEqual([]);
    expect((await setSites([group, plant1, plant2, line1, other])).status).toBe(200);
    expect((await current()).head).toBe(18);
    // Default statuses APPROVED only: line 1's approved 3 alone (the rest is COMPLETED).
    const statuses = (defaultStatuses: string[]) =>
      api(t, 'PATCH', '/organizations/current', { token: w.tenant.owner.token, body: { defaultStatuses } });
    expect((await statuses(['APPROVED'])).status).toBe(200);
    expect(await current()).toEqual({ head: 3, area: null });
    expect(await verify()).toEqual([]);
    expect((await statuses(['COMPLETED', 'APPROVED'])).status).toBe(200);
    expect(await current()).toEqual(await direct());
    expect(await verify()).toEqual([]);
  });

  it('are rebuilt set-wise by a statement that touches most of the organization (a bulk load)', async () => {
    const org = w.tenant.organizationId;
    const corrupt = () =>
      t.database.system((tx) =>
        sql`update value_subtree_stats set last_sum = last_sum + 100
             where organization_id = ${org} and site_id = ${w.sites.group}
               and element_id = ${w.element.head} and year = 2025 and period_unit = 0
               and stripe = (select min(stripe) from value_subtree_stats
                              where organization_id = ${org} and site_id = ${w.sites.group}
                                and element_id = ${w.element.head} and year = 2025 and period_unit = 0)`.execute(
          tx,
        ),
      );
    /** Every value of the organization rewritten (+1, then −1): every key touched, twice. */
    const touchAll = (bulkKeys: number | null) =>
      t.database.system(async (tx) => {
        if (bulkKeys !== null)
          await sql`select set_config('sdcs.stats_bulk_keys', ${String(bulkKeys)}, true)`.execute(tx);
        for (const step of [1, -1])
          await sql`update form_element_submissions set numeric_value = numeric_value + ${step}
                     where organization_id = ${org} and numeric_value is not null`.execute(tx);
      });
    const before = await current();
    await corrupt();
    // Under the threshold (5,000 keys by default) each touched key is recomputed and its change
    // added to the ancestors' rows: the corrupted subtree row is left as it was.
    await touchAll(null);
    expect(await verify()).toHaveLength(1);
    // With the threshold at one key, a statement touching every key rebuilds the organization's
    // rows from its values: the corruption is gone, the figures are those of the values.
    await touchAll(1);
    expect(await verify()).toEqual([]);
    expect(await current()).toEqual(before);
    expect(await current()).toEqual(await direct());
    // A statement touching fewer than half the organization's keys stays incremental.
    await corrupt();
    await t.database.system(async (tx) => {
      await sql`select set_config('sdcs.stats_bulk_keys', '1', true)`.execute(tx);
      await sql`update form_element_submissions set numeric_value = numeric_value + 1
                 where organization_id = ${org} and site_id = ${w.sites.plant2} and element_id = ${w.element.head}`.execute(
        tx,
      );
    });
    expect(await verify()).toHaveLength(1);
    await t.database.system((tx) => rebuildTotals(tx, org));
    expect(await verify()).toEqual([]);
  });

  it('are kept for LAST and AVERAGE elements only, and follow a change of aggregation', async () => {
    const org = w.tenant.organizationId;
    const token = w.tenant.owner.token;
    const elec = await w.create({ name: 'elec kept', expressionParts: [el(w.element.elec)] });
    expect(elec.status).toBe(200);
    const rows = (elementId: string) =>
      t.database.system(async (tx) => {
        const r = await sql<{ own: number; subtree: number }>`
          select (select count(*) from value_site_stats where organization_id = ${org} and element_id = ${elementId})::int as own,
                 (select count(*) from value_subtree_stats where organization_id = ${org} and element_id = ${elementId})::int as subtree`.execute(
          tx,
        );
        return r.rows[0]!;
      });
    /** Current values (explained) of headcount, area and electricity, and the same from the values. */
    const both = async () => {
      const body = { indicatorIds: [headId, areaId, elec.body.id], year: 2025, explain: true };
      const kept = await w.values(body);
      totalsSource.enabled = false;
      try {
        const values = await w.values(body);
        expect(kept.status, JSON.stringify(kept.body)).toBe(200);
        expect(kept.body).toEqual(values.body);
      } finally {
        totalsSource.enabled = true;
      }
      return kept.body.results as Record<string, { value: number | null }>;
    };
    // Electricity is summed: no statistics rows; its explained site count comes from the values.
    expect(await rows(w.element.elec)).toEqual({ own: 0, subtree: 0 });
    expect((await rows(w.element.head)).own).toBeGreaterThan(0);
    // Plant 2 reports a second headcount (June 4): its latest is 4, its sum 6 + 4.
    const res = await submit(w.sites.plant2, [{ elementKey: 'head', periodUnit: 6, value: 4 }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const before = await both();
    expect(before[headId]!.value).toBe(10 + 4 + 3);
    const form = await api(t, 'GET', `/forms/${w.formId}`, { token });
    expect(form.status).toBe(200);
    const aggregate = (change: Record<string, string>) =>
      api(t, 'PUT', `/forms/${w.formId}`, {
        token,
        body: {
          name: form.body.name,
          periodType: form.body.periodType,
          elements: (form.body.elements as Record<string, unknown>[]).map((e) => ({
            id: e['id'],
            key: e['key'],
            label: e['label'],
            type: e['type'],
            ...(e['unitId'] ? { unitId: e['unitId'] } : {}),
            aggregation: change[e['key'] as string] ?? e['aggregation'],
          })),
        },
      });
    // Headcount summed, electricity averaged: the rows follow, the figures are the values'.
    const changed = await aggregate({ head: 'SUM', elec: 'AVERAGE' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(await rows(w.element.head)).toEqual({ own: 0, subtree: 0 });
    expect((await rows(w.element.elec)).own).toBeGreaterThan(0);
    expect(await verify()).toEqual([]);
    expect((await both())[headId]!.value).toBe(10 + 6 + 4 + 3);
    // Back: the same rows and figures as before.
    expect((await aggregate({ head: 'LAST', elec: 'SUM' })).status).toBe(200);
    expect(await rows(w.element.elec)).toEqual({ own: 0, subtree: 0 });
    expect(await verify()).toEqual([]);
    expect(await both()).toEqual(before);
    // A write after the change is counted under the aggregation of the moment.
    const more = await submit(w.sites.plant2, [{ elementKey: 'head', periodUnit: 7, value: 2 }]);
    expect(more.status, JSON.stringify(more.body)).toBe(200);
    expect(await verify()).toEqual([]);
    expect((await both())[headId]!.value).toBe(10 + 2 + 3);
  });
});
