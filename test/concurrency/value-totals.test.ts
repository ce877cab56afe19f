import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { Database } from '../../src/db/client.ts';
import { verifyTotals } from '../../src/modules/indicators/totals.verify.ts';
import { shutdownSandbox } from '../../src/sandbox/index.ts';
import { api, type TestContext, useTestApp } from '../helpers/app.ts';
import { activateForm, createForm, createSite, createTenant, type Tenant } from '../helpers/factories.ts';

/**
 * The pre-aggregated totals under parallel writes: 20 plants submit the same element and months
 * at once (every one of them changes the same rows of their region and of the root), while
 * others delete and a site is moved. In PostgreSQL mode the requests are spread over two app
 * instances (two pools). No request fails (no deadlock, no 409), and the totals are exact.
 */
const t = useTestApp();
const N = 20;
let second: { app: FastifyInstance; database: Database } | undefined;
let tenant: Tenant;
const via = (i: number): TestContext => (second && i % 2 === 1 ? { ...t, app: second.app } : t);

beforeAll(async () => {
  tenant = await createTenant(t);
  if (t.url) {
    const database = await Database.open({ databaseUrl: t.url });
    const app = await buildApp({ database, config: t.config });
    await app.ready();
    second = { app, database };
  }
});

afterAll(async () => {
  await second?.app.close();
  await second?.database.close();
  await shutdownSandbox();
});

describe('value totals under concurrent writes', () => {
  it('20 plants writing the same months at once: every write counted once, at every level', async () => {
    const org = tenant.organizationId;
    const root = await createSite(t, org, { name: 'Root' });
    const regions = [
      await createSite(t, org, { name: 'North', parentId: root }),
      await createSite(t, org, { name: 'South', parentId: root }),
    ];
    const plants: string[] = [];
    for (let i = 0; i < N; i++)
      plants.push(await createSite(t, org, { name: `Plant ${i}`, parentId: regions[i % 2] }));
    const form = await createForm(t, tenant, {
      elements: [
        { key: 'a', label: 'A', type: 'NUMBER' },
        { key: 'b', label: 'B', type: 'NUMBER' },
      ],
    });
    await activateForm(t, tenant, form.id, plants, [2025]);
    const submit = (
      ctx: TestContext,
      plant: string,
      values: { elementKey: string; periodUnit: number; value: unknown }[],
    ) =>
      api(ctx, 'POST', '/form-submissions', {
        token: tenant.owner.token,
        body: { formId: form.id, siteId: plant, year: 2025, values },
      });
    // Plant i: a = i + 1 and b = 2 (i + 1) in each of the 12 months; b is written in the opposite
    // month order to a, so that two requests meet the shared rows in different orders.
    const months = Array.from({ length: 12 }, (_, m) => m + 1);
    const first = await Promise.all(
      plants.map((plant, i) =>
        submit(via(i), plant, [
          ...months.map((m) => ({ elementKey: 'a', periodUnit: m, value: i + 1 })),
          ...[...months].reverse().map((m) => ({ elementKey: 'b', periodUnit: m, value: 2 * (i + 1) })),
        ]),
      ),
    );
    for (const r of first) expect(r.status, JSON.stringify(r.body)).toBe(200);

    // Then at once: even plants delete their January a, odd plants double their a of every month,
    // and plant 0 moves from North to South.
    const second_ = await Promise.all([
      ...plants.map((plant, i) =>
        submit(
          via(i),
          plant,
          i % 2 === 0
            ? [{ elementKey: 'a', periodUnit: 1, value: null }]
            : months.map((m) => ({ elementKey: 'a', periodUnit: m, value: 2 * (i + 1) })),
        ),
      ),
      api(via(1), 'PATCH', `/sites/${plants[0]}`, {
        token: tenant.owner.token,
        body: { parentId: regions[1] },
      }),
    ]);
    for (const r of second_) expect(r.status, JSON.stringify(r.body)).toBe(200);

    const totals = await t.database.system(async (tx) => {
      const r = await sql<{ site_id: string; element: string; total: string; n: string }>`
        select t.site_id, e.key as element, sum(t.total)::text as total, sum(t.value_count)::text as n
          from value_totals t join form_elements e on e.id = t.element_id
         where t.organization_id = ${org} and t.site_id = any(${[root, ...regions]}::uuid[])
         group by 1, 2`.execute(tx);
      return new Map(
        r.rows.map((x) => [`${x.site_id}:${x.element}`, { total: Number(x.total), n: Number(x.n) }]),
      );
    });
    // a: even plants (i + 1) × 11 months; odd plants 2 (i + 1) × 12 months.
    // Even i: 1, 3, ..., 19 → sum 100, × 11 = 1100. Odd i: 2, 4, ..., 20 → sum 110, × 24 = 2640.
    expect(totals.get(`${root}:a`)).toEqual({ total: 3740, n: 10 * 11 + 10 * 12 });
    // b: 2 (i + 1) × 12 for every plant: 2 × 210 × 12 = 5040.
    expect(totals.get(`${root}:b`)).toEqual({ total: 5040, n: 240 });
    // North now holds the even plants but plant 0 (i = 2, 4, ..., 18: i + 1 = 3 ... 19, sum 99).
    expect(totals.get(`${regions[0]}:a`)).toEqual({ total: 99 * 11, n: 9 * 11 });
    expect(await t.database.system((tx) => verifyTotals(tx, org))).toEqual([]);
  });
});
