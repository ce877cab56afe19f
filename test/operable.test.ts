import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { API_PREFIX, buildApp } from '../src/app.ts';
import { api, testConfig, useTestApp } from './helpers/app.ts';
import { createTenant } from './helpers/factories.ts';

const METRICS_TOKEN = 'metrics-token-0123456789';

describe('metrics', () => {
  const t = useTestApp({ metricsToken: METRICS_TOKEN });

  it('are served only with the metrics token, in Prometheus format', async () => {
    const tenant = await createTenant(t);
    await api(t, 'GET', '/me', { token: tenant.owner.token });
    await api(t, 'GET', '/sites/00000000-0000-4000-8000-000000000000', { token: tenant.owner.token });
    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    const apiCredential = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${tenant.apiKey}` },
    });
    expect(apiCredential.statusCode).toBe(401);
    const res = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toContain('sdcs_http_requests_total{method="GET",route="/api/v1/me",status="200"} 1');
    // Route patterns, not URLs: one series per route.
    expect(res.body).toContain('route="/api/v1/sites/:id",status="404"');
    expect(res.body).toMatch(
      /sdcs_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/v1\/me"\}/,
    );
    expect(res.body).toMatch(/^sdcs_db_pool_in_use \d+$/m);
    expect(res.body).toMatch(/^sdcs_db_pool_waiting \d+$/m);
    expect(res.body).toContain('sdcs_nodejs_eventloop_lag_seconds');
    expect(res.body).toMatch(/^sdcs_sandbox_queue_length \d+$/m);
  });

  it('are not served without a configured token', async () => {
    const app = await buildApp({ database: t.database, config: testConfig() });
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    await app.close();
    expect(res.statusCode).toBe(404);
  });
});

describe('overload', () => {
  const t = useTestApp();

  it('answers 503 with Retry-After and the error body under pressure; liveness still answers', async () => {
    const tenant = await createTenant(t);
    // A heap limit every process is over.
    const app = await buildApp({ database: t.database, config: testConfig({ maxHeapUsedBytes: 1 }) });
    await app.ready();
    await new Promise((r) => setTimeout(r, 1_600));
    const res = await app.inject({
      method: 'GET',
      url: `${API_PREFIX}/me`,
      headers: { authorization: `Bearer ${tenant.owner.token}` },
    });
    const live = await app.inject({ method: 'GET', url: `${API_PREFIX}/health/live` });
    await app.close();
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.json()).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/memory/) });
    expect(live.statusCode).toBe(200);
  });
});

describe('rate limit per credential', () => {
  const t = useTestApp({ rateLimitPerMinute: 3, metricsToken: METRICS_TOKEN });

  it('refuses the request over the limit with 429, Retry-After and RateLimit headers; others go on', async () => {
    const tenant = await createTenant(t);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof api>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await api(t, 'GET', '/me', { token: tenant.owner.token });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last?.headers['retry-after']).toMatch(/^\d+$/);
    expect(last?.headers['ratelimit-limit']).toBe('3');
    expect(last?.headers['ratelimit-remaining']).toBe('0');
    expect(last?.body).toEqual({
      code: 'TOO_MANY_REQUESTS',
      message: expect.stringMatching(/try again in \d+ s/),
    });
    // Another credential of the same member and organization has its own counter.
    expect((await api(t, 'GET', '/me', { token: tenant.apiKey })).status).toBe(200);
    const metrics = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(metrics.body).toContain('sdcs_requests_refused_total{reason="rate_limit"} 1');
  });

  it('counts across two processes on one database through Redis', async () => {
    const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
    const tenant = await createTenant(t);
    const config = testConfig({ rateLimitPerMinute: 4, redisUrl });
    const [a, b] = [
      await buildApp({ database: t.database, config }),
      await buildApp({ database: t.database, config }),
    ];
    try {
      await Promise.all([a.ready(), b.ready()]);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const app = i % 2 === 0 ? a : b;
        const res = await app.inject({
          method: 'GET',
          url: `${API_PREFIX}/me`,
          headers: { authorization: `Bearer ${tenant.owner.token}` },
        });
        statuses.push(res.statusCode);
      }
      // In memory each would allow 4 (8 in all); shared, the two allow 4 together.
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      // A credential never seen is not limited by another's count.
      const fresh = await b.inject({
        method: 'GET',
        url: `${API_PREFIX}/me`,
        headers: { authorization: `Bearer sdcs_${randomBytes(8).toString('hex')}` },
      });
      expect(fresh.statusCode).toBe(401);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
