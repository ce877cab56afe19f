import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { api, openTestDatabase, type TestContext, testConfig } from '../helpers/app.ts';
import { createTenant } from '../helpers/factories.ts';

/**
 * Issue 41, item 6: API keys multiplied the rate limit. The limit was per credential and an owner
 * could create any number of keys (60 were created): 4 keys gave 4 × the limit. Now an
 * organization has one budget for all its credentials, and a cap on its live keys.
 */
async function withApp(overrides: Partial<Config>, run: (t: TestContext) => Promise<void>): Promise<void> {
  const { database, drop } = await openTestDatabase();
  const config = testConfig(overrides);
  const app = await buildApp({ database, config });
  try {
    await run({ app, database, config });
  } finally {
    await app.close();
    await drop();
  }
}

async function organizationBudget(t: TestContext): Promise<void> {
  const tenant = await createTenant(t);
  const other = await createTenant(t);
  const keys: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await api(t, 'POST', '/apikeys', { token: tenant.owner.token, body: { name: `key ${i}` } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    keys.push(res.body.apiKey);
  }
  // 40 requests at once, 10 with each key: within each key's own limit (10), but the organization
  // has 25 a minute and spent 4 on creating the keys.
  const results = await Promise.all(
    keys.flatMap((key) => Array.from({ length: 10 }, () => api(t, 'GET', '/sites', { token: key }))),
  );
  const statuses = results.map((r) => r.status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(21);
  expect(statuses.filter((s) => s === 429)).toHaveLength(19);
  const refused = results.find((r) => r.status === 429)!;
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
  expect(refused.body.code).toBe('TOO_MANY_REQUESTS');
  expect(refused.body.message).toContain('more than 25 requests this minute');
  // A new key does not help, and the owner's own token shares the budget.
  expect((await api(t, 'GET', '/sites', { token: tenant.owner.token })).status).toBe(429);
  // Another organization is not touched.
  expect((await api(t, 'GET', '/sites', { token: other.owner.token })).status).toBe(200);
}

describe('the per-organization request budget', () => {
  const limits = { rateLimitPerMinute: 10, orgRateLimitPerMinute: 25 };

  it('4 keys × 10 requests against 25 a minute for the organization: 21 pass after the 4 creations, 19 are 429 (in memory)', () =>
    withApp(limits, organizationBudget));

  it('a key past its own limit is refused by that limit and does not spend the budget of the others', () =>
    withApp(limits, async (t) => {
      const tenant = await createTenant(t);
      const keys: string[] = [];
      for (const name of ['busy', 'quiet']) {
        const res = await api(t, 'POST', '/apikeys', { token: tenant.owner.token, body: { name } });
        keys.push(res.body.apiKey);
      }
      const busy: number[] = [];
      for (let i = 0; i < 30; i++) busy.push((await api(t, 'GET', '/sites', { token: keys[0] })).status);
      expect(busy).toEqual([...Array(10).fill(200), ...Array(20).fill(429)]);
      // 2 creations + 10 answered: 13 of the organization's 25 are left for the quiet key's 10.
      const quiet: number[] = [];
      for (let i = 0; i < 10; i++) quiet.push((await api(t, 'GET', '/sites', { token: keys[1] })).status);
      expect(quiet).toEqual(Array(10).fill(200));
    }));

  it('the same, counted in Redis', () =>
    withApp({ ...limits, redisUrl: 'redis://127.0.0.1:6379' }, organizationBudget));
});

describe('the cap on live API keys', () => {
  it('40 parallel creations never exceed the cap of 20 live keys; a revoked key frees a place', () =>
    withApp({ maxApiKeysPerOrganization: 20 }, async (t) => {
      const tenant = await createTenant(t); // comes with one key
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          api(t, 'POST', '/apikeys', { token: tenant.owner.token, body: { name: `parallel ${i}` } }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(19);
      expect(statuses.filter((s) => s === 409)).toHaveLength(21);
      const refused = results.find((r) => r.status === 409)!;
      expect(refused.body.code).toBe('CONFLICT');
      expect(refused.body.message).toContain('the most it may hold (20)');
      const listed = await api(t, 'GET', '/apikeys', { token: tenant.owner.token });
      expect(listed.body).toHaveLength(20);

      const revoked = await api(t, 'DELETE', `/apikeys/${listed.body[0].id}`, { token: tenant.owner.token });
      expect(revoked.status).toBe(200);
      const again = await api(t, 'POST', '/apikeys', { token: tenant.owner.token, body: { name: 'after' } });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(
        (await api(t, 'POST', '/apikeys', { token: tenant.owner.token, body: { name: 'one more' } })).status,
      ).toBe(409);
    }));
});
