import { describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { buildApp } from '../../app.ts';
import { Database } from '../../db/client.ts';

describe('health endpoints', () => {
  const t = useTestApp();

  it('live answers without touching anything', async () => {
    const res = await api(t, 'GET', '/health/live');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('ready checks the database, the migrations and the sandbox', async () => {
    const res = await api(t, 'GET', '/health/ready');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      database: t.database.engine,
      checks: { database: 'ok', migrations: 'ok', sandbox: 'ok' },
    });
  });

  it('ready is a 503 with Retry-After naming the database when it does not answer', async () => {
    // A server that is not there (nothing listens on port 1).
    const away = await Database.open({ databaseUrl: 'postgres://postgres@127.0.0.1:1/sdcs' });
    const app = await buildApp({ database: away, config: t.config });
    const res = await app.inject({ method: 'GET', url: '/api/v1/health/ready' });
    const plain = await app.inject({ method: 'GET', url: '/api/v1/health' });
    await app.close();
    expect(plain.statusCode).toBe(503);
    expect(plain.json().code).toBe('SERVICE_UNAVAILABLE');
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    const body = res.json();
    expect(body.code).toBe('SERVICE_UNAVAILABLE');
    expect(body.issues.map((i: { path: string }) => i.path)).toContain('database');
  });
});
