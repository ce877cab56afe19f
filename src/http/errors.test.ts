import { describe, expect, it } from 'vitest';
import { openTestDatabase, testConfig, useTestApp } from '../../test/helpers/app.ts';
import { createTenant } from '../../test/helpers/factories.ts';
import { API_PREFIX, buildApp } from '../app.ts';

const t = useTestApp();

describe('the error contract', () => {
  it('unknown routes answer 404 with the error body', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${API_PREFIX}/no-such-thing` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      code: 'NOT_FOUND',
      message: expect.stringContaining('/api/v1/no-such-thing'),
    });
  });

  it('a credential without the Bearer scheme is a 401 that says how to send it', async () => {
    const tenant = await createTenant(t);
    const res = await t.app.inject({
      method: 'GET',
      url: `${API_PREFIX}/me`,
      headers: { authorization: tenant.apiKey },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toContain('Bearer');
  });

  it('malformed JSON is a 400 with the error body', async () => {
    const tenant = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `${API_PREFIX}/apikeys`,
      headers: { authorization: `Bearer ${tenant.owner.token}`, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'BAD_REQUEST', message: expect.any(String) });
  });

  it('a body over the limit is a 413 with the error body', async () => {
    const tenant = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `${API_PREFIX}/apikeys`,
      headers: { authorization: `Bearer ${tenant.owner.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(t.config.bodyLimitBytes + 10) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('a body that is not JSON is a 415 with the error body', async () => {
    const tenant = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `${API_PREFIX}/apikeys`,
      headers: { authorization: `Bearer ${tenant.owner.token}`, 'content-type': 'text/xml' },
      payload: '<name/>',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('an unexpected failure is a 500 that reveals nothing, and the request id is logged', async () => {
    const lines: string[] = [];
    const { database, drop } = await openTestDatabase();
    const app = await buildApp({
      database,
      config: testConfig(),
      logger: { level: 'error', stream: { write: (line: string) => lines.push(line) } },
    });
    app.get('/boom', { config: { public: true } }, async () => {
      throw new Error('secret detail: select * from users');
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/boom', headers: { 'x-request-id': 'req-42' } });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' });
      expect(res.headers['x-request-id']).toBe('req-42');
      expect(lines.join('\n')).toContain('secret detail');
      expect(lines.join('\n')).toContain('req-42');
    } finally {
      await app.close();
      await drop();
    }
  });

  it('a database failure is a 500 without SQL in the body', async () => {
    const { database, drop } = await openTestDatabase();
    const app = await buildApp({ database, config: testConfig() });
    app.get('/bad-sql', { config: { public: true } }, async () =>
      database.system((tx) =>
        tx
          .selectFrom('no_such_table' as 'users')
          .selectAll()
          .execute(),
      ),
    );
    try {
      const res = await app.inject({ method: 'GET', url: '/bad-sql' });
      expect(res.statusCode).toBe(500);
      expect(res.body).not.toContain('no_such_table');
    } finally {
      await app.close();
      await drop();
    }
  });

  it('a transaction aborted by a concurrent one (deadlock) is a 409 that asks to retry', async () => {
    const { database, drop } = await openTestDatabase();
    const app = await buildApp({ database, config: testConfig() });
    app.get('/deadlock', { config: { public: true } }, async () => {
      throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/deadlock' });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('again') });
    } finally {
      await app.close();
      await drop();
    }
  });

  it('serves the OpenAPI document and the interactive docs without a credential', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json().openapi).toBe('3.1.0');
    expect(doc.json().paths['/api/v1/apikeys'].post.operationId).toBe('apikeys.create');
    const ui = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(ui.statusCode).toBe(200);
    expect(ui.body).toContain('<html');
  });

  it('GET /health names the engine', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${API_PREFIX}/health` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      database: process.env['DATABASE_URL'] ? 'postgres' : 'pglite',
    });
  });
});
