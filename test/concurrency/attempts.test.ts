import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { api, openTestDatabase, testConfig } from '../helpers/app.ts';

/**
 * Issue 25, item 7: counters under parallel requests. 40 wrong passwords at once from one address
 * against a limit of 10: exactly 10 reach the password check (401), the other 30 are 429.
 */
let app: FastifyInstance;
let drop: () => Promise<void>;
const config = testConfig({ authAttemptsPerMinute: 10 });

beforeAll(async () => {
  const opened = await openTestDatabase();
  drop = opened.drop;
  app = await buildApp({ database: opened.database, config });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await drop();
});

describe('the login attempt counter', () => {
  it('lets through at most the limit of 40 parallel wrong passwords from one address', async () => {
    const ctx = { app, database: undefined as never, config };
    const results = await Promise.all(
      Array.from({ length: 40 }, () =>
        api(ctx, 'POST', '/auth/login', { body: { email: 'nobody@acme.test', password: 'wrong-password' } }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    // Each answer carries its own count: the 401s saw 9, 8, …, 0 attempts left.
    const remaining = results
      .filter((r) => r.status === 401)
      .map((r) => Number(r.headers['ratelimit-remaining']));
    expect(remaining.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
