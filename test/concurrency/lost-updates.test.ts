import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { Database } from '../../src/db/client.ts';
import { shutdownSandbox } from '../../src/sandbox/index.ts';
import { api, type TestContext, useTestApp } from '../helpers/app.ts';
import {
  activateForm,
  createActivityDefinition,
  createDataset,
  createDatasetItem,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../helpers/factories.ts';

/**
 * Read-modify-write routes under 20 parallel changes of different fields: no change is lost
 * and the stored row equals the last history entry. In PostgreSQL mode the requests are
 * spread over two app instances (two connection pools) on one database, as two processes.
 */
// 20 merges of one activity queue for the sandbox on a busy machine: the per-request calculation
// budget (wall time, 5 s by default) is not what this test is about.
const t = useTestApp({ calcRequestBudgetMs: 120_000 });
const N = 20;
let second: { app: FastifyInstance; database: Database } | undefined;
let tenant: Tenant;

/** The context of the i-th request: every other one goes to the second instance when there is one. */
const via = (i: number): TestContext => (second && i % 2 === 1 ? { ...t, app: second.app } : t);

/**
 * Sends `N` requests at once (built by `request(i)`) and expects all to succeed, or (`allowed`)
 * some to be refused as a whole, such as a 409 "try again".
 */
async function parallel(
  request: (ctx: TestContext, i: number) => Promise<{ status: number; body: unknown }>,
  allowed: number[] = [200],
) {
  const results = await Promise.all(Array.from({ length: N }, (_, i) => request(via(i), i)));
  for (const r of results) expect(allowed, JSON.stringify(r.body)).toContain(r.status);
  return results;
}

/** Each history entry starts where the previous one ended: the changes were applied one after another. */
function expectChained(history: { before: unknown; after: unknown }[]) {
  for (let i = 1; i < history.length; i++) expect(history[i]!.before).toEqual(history[i - 1]!.after);
}

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

describe('lost updates', () => {
  it('PUT /dataset-items/{id}: names and descriptions changed at once are all kept, in history order', async () => {
    const dataset = await createDataset(t, tenant.organizationId);
    const id = await createDatasetItem(t, tenant.organizationId, dataset, { key: 'k', value: 1, year: 2024 });
    await parallel((ctx, i) =>
      api(ctx, 'PUT', `/dataset-items/${id}`, {
        token: tenant.owner.token,
        body: i % 2 === 0 ? { name: `name ${i}` } : { description: `description ${i}` },
      }),
    );
    const item = (await api(t, 'GET', `/dataset-items/${id}`, { token: tenant.owner.token })).body;
    const history = (await api(t, 'GET', `/dataset-items/${id}/history`, { token: tenant.owner.token })).body;
    const updates = history.filter((h: any) => h.action === 'update');
    expect(updates).toHaveLength(N);
    expectChained(updates);
    expect(updates.at(-1).after).toEqual(item);
    expect(item.name).toMatch(/^name \d+$/);
    expect(item.description).toMatch(/^description \d+$/);
  });

  it('PATCH /activities/{id}: 20 merges of different input fields all reach the stored input', async () => {
    const inputs = Array.from({ length: N }, (_, i) => ({ name: `f${i}`, type: 'number' as const }));
    const definition = await createActivityDefinition(t, tenant.organizationId, {
      key: 'things',
      inputs,
      calcCode: 'return Object.values(inputs).reduce((a, b) => a + (b ?? 0), 0)',
    });
    const site = await createSite(t, tenant.organizationId);
    const form = await createForm(t, tenant, {
      periodType: 'YEARLY',
      elements: [{ label: 'Things', type: 'ACTIVITY', activityDefinitionId: definition }],
    });
    await activateForm(t, tenant, form.id, [site], [2025]);
    const entered = await api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId: site,
        year: 2025,
        values: [{ elementKey: 'things', periodUnit: 1, value: [{}] }],
      },
    });
    expect(entered.status, JSON.stringify(entered.body)).toBe(200);
    const activityId = entered.body.values[0].activities[0].activityId;

    // The calculation runs outside the write transaction: a merge whose input changed meanwhile
    // is calculated again, and one that keeps losing that race is a 409 that changed nothing.
    const results = await parallel(
      (ctx, i) =>
        api(ctx, 'PATCH', `/activities/${activityId}`, {
          token: tenant.owner.token,
          body: { input: { [`f${i}`]: i + 1 } },
        }),
      [200, 409],
    );
    const accepted = results.flatMap((r, i) => (r.status === 200 ? [i] : []));
    expect(accepted.length).toBeGreaterThan(0);
    const history = (await api(t, 'GET', `/activities/${activityId}/history`, { token: tenant.owner.token }))
      .body;
    const updates = history.filter((h: any) => h.action === 'UPDATE');
    expect(updates).toHaveLength(accepted.length);
    expectChained(updates);
    const expected = Object.fromEntries(accepted.map((i) => [`f${i}`, i + 1]));
    const total = accepted.reduce((sum, i) => sum + i + 1, 0);
    expect(updates.at(-1).after.input).toEqual(expected);
    expect(updates.at(-1).after.value).toBe(total);
    const stored = await t.database.tenant(tenant.organizationId, (tx) =>
      tx
        .selectFrom('activities')
        .select(['input', 'value'])
        .where('id', '=', activityId)
        .executeTakeFirstOrThrow(),
    );
    expect(stored.input).toEqual(expected);
    expect(Number(stored.value)).toBe(total);
  });

  it('PATCH /sites/{id}: names and latitudes changed at once are both kept', async () => {
    const site = await createSite(t, tenant.organizationId, { name: 'Original' });
    await parallel((ctx, i) =>
      api(ctx, 'PATCH', `/sites/${site}`, {
        token: tenant.owner.token,
        body: i % 2 === 0 ? { name: `name ${i}` } : { latitude: i },
      }),
    );
    const stored = (await api(t, 'GET', `/sites/${site}`, { token: tenant.owner.token })).body;
    expect(stored.name).toMatch(/^name \d+$/);
    expect(stored.latitude % 2).toBe(1);
  });

  it('PUT /datasets/{id}: names and descriptions changed at once are both kept', async () => {
    const dataset = await createDataset(t, tenant.organizationId, { name: 'Original' });
    await parallel((ctx, i) =>
      api(ctx, 'PUT', `/datasets/${dataset}`, {
        token: tenant.owner.token,
        body: i % 2 === 0 ? { name: `name ${i}` } : { description: `description ${i}` },
      }),
    );
    const stored = (await api(t, 'GET', `/datasets/${dataset}`, { token: tenant.owner.token })).body;
    expect(stored.name).toMatch(/^name \d+$/);
    expect(stored.description).toMatch(/^description \d+$/);
  });

  it('POST /form-submissions/values/{id}/review: the stored status is the last review’s', async () => {
    const site = await createSite(t, tenant.organizationId);
    const form = await createForm(t, tenant, { periodType: 'YEARLY' });
    await activateForm(t, tenant, form.id, [site], [2025]);
    const entered = await api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId: site,
        year: 2025,
        values: [{ elementKey: 'amount', periodUnit: 1, value: 1 }],
      },
    });
    expect(entered.status, JSON.stringify(entered.body)).toBe(200);
    const valueId = entered.body.values[0].formElementSubmissionId;
    await parallel((ctx, i) =>
      api(ctx, 'POST', `/form-submissions/values/${valueId}/review`, {
        token: tenant.owner.token,
        body: { status: i % 2 === 0 ? 'APPROVED' : 'REJECTED' },
      }),
    );
    const history = (
      await api(t, 'GET', `/form-submissions/values/${valueId}/history`, { token: tenant.owner.token })
    ).body;
    const reviews = history.filter((h: any) => h.action === 'REVIEW');
    expect(reviews.length).toBeGreaterThan(0);
    expectChained(history);
    const stored = await t.database.tenant(tenant.organizationId, (tx) =>
      tx
        .selectFrom('form_element_submissions')
        .select('status')
        .where('id', '=', valueId)
        .executeTakeFirstOrThrow(),
    );
    expect(stored.status).toBe(history.at(-1).after.status);
  });
});
