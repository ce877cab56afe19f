import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { api, openTestDatabase, testConfig } from '../helpers/app.ts';
import { createTenant } from '../helpers/factories.ts';

/**
 * Issue 25, item 8: a made-up or unknown credential does not get a rate-limit bucket of its own;
 * it counts against the client address it comes from.
 */
describe('refused credentials and the request rate limit', () => {
  it('120 bogus tokens from one address: past the 100/min limit they are answered 429', async () => {
    const { database, drop } = await openTestDatabase();
    const config = testConfig({ rateLimitPerMinute: 100 });
    const app = await buildApp({ database, config });
    const ctx = { app, database, config };
    try {
      const tenant = await createTenant(ctx);
      const statuses: number[] = [];
      for (let i = 0; i < 120; i++) {
        const res = await api(ctx, 'GET', '/sites', {
          token: `sdcs_at_bogus${i.toString().padStart(40, '0')}`,
        });
        statuses.push(res.status);
      }
      // 100 refusals of the credential, then the address's budget is spent.
      expect(statuses.filter((s) => s === 401)).toHaveLength(100);
      expect(statuses.slice(100)).toEqual(Array(20).fill(429));
      // No header at all counts against the same address.
      expect((await api(ctx, 'GET', '/sites')).status).toBe(429);
      // A valid credential keeps its own bucket: bogus tokens cannot lock a real caller out.
      expect((await api(ctx, 'GET', '/sites', { token: tenant.owner.token })).status).toBe(200);
    } finally {
      await app.close();
      await drop();
    }
  });
});
