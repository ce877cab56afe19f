import { connect } from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { api, openTestDatabase, testConfig, useTestApp } from '../../test/helpers/app.ts';
import { errorText } from '../../test/helpers/errors.ts';
import { createTenant } from '../../test/helpers/factories.ts';
import { API_PREFIX, buildApp } from '../app.ts';

const t = useTestApp();

describe('the error contract', () => {
  it('unknown routes answer 404 with the error body', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${API_PREFIX}/no-such-thing` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      code: 'NOT_FOUND',
      message: 'Not found',
      issues: [{ message: expect.stringContaining('/api/v1/no-such-thing') }],
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
    expect(res.json()).toEqual({
      code: 'UNAUTHORIZED',
      message: 'Authorization not provided',
      issues: [{ message: expect.stringContaining('Bearer') }],
    });
  });

  it('no credential is a 401 with the contract’s message and nothing more', async () => {
    const res = await api(t, 'GET', '/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 'UNAUTHORIZED', message: 'Authorization not provided' });
  });

  it('an unknown credential is a 401 with the contract’s message and the reason as an issue', async () => {
    const res = await api(t, 'GET', '/me', { token: 'not-a-real-credential' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      code: 'UNAUTHORIZED',
      message: 'Authorization not provided',
      issues: [{ message: expect.stringMatching(/invalid or expired/i) }],
    });
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
    expect(res.json()).toEqual({
      code: 'BAD_REQUEST',
      message: 'Invalid input data',
      issues: [{ message: expect.stringContaining('not valid JSON') }],
    });
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

  it.each([
    ['text/xml', '<name/>'],
    ['application/xml', '<name/>'],
    ['text/plain', 'name=x'],
    ['text/plain; charset=utf-8', '{"name":"x"}'],
    ['application/x-www-form-urlencoded', 'name=x'],
    ['not a media type', '{"name":"x"}'],
  ])('a body sent as %s is a 400 that asks for JSON', async (contentType, payload) => {
    const tenant = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `${API_PREFIX}/apikeys`,
      headers: { authorization: `Bearer ${tenant.owner.token}`, 'content-type': contentType },
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      code: 'BAD_REQUEST',
      message: 'Invalid input data',
      issues: [{ message: 'Send the request body as application/json' }],
    });
  });

  it('JSON with a charset parameter is read as JSON', async () => {
    const tenant = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `${API_PREFIX}/apikeys`,
      headers: {
        authorization: `Bearer ${tenant.owner.token}`,
        'content-type': 'application/json; charset=utf-8',
      },
      payload: JSON.stringify({ name: 'charset' }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().name).toBe('charset');
  });

  it.each([
    ['a string', { name: 'a\u0000b' }, 'name'],
    ['a nested string', { name: 'ok', extra: { deep: ['fine', 'bad\u0000'] } }, 'extra.deep.1'],
    ['a property name', { name: 'ok', extra: { 'a\u0000b': 1 } }, 'extra.a\\u0000b'],
  ])('the NUL character in %s is a 400 naming the field', async (_what, body, path) => {
    const tenant = await createTenant(t);
    const res = await api(t, 'POST', '/apikeys', { token: tenant.owner.token, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'BAD_REQUEST',
      message: 'Invalid input data',
      issues: [{ path, message: expect.stringContaining('NUL') }],
    });
  });

  it('a NUL escape inside a longer escape is not mistaken for one', async () => {
    const tenant = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `${API_PREFIX}/apikeys`,
      headers: { authorization: `Bearer ${tenant.owner.token}`, 'content-type': 'application/json' },
      payload: '{"name":"back\\\\u0000slash"}',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().name).toBe('back\\u0000slash');
  });

  it.each([
    ['1e400', '{"name":"x","data":{"value":1e400}}', 'data.value'],
    ['-1e999 in an array', '{"name":"x","data":[0,-1e999]}', 'data.1'],
    ['400 digits', `{"name":"x","big":${'9'.repeat(400)}}`, 'big'],
  ])(
    'a number that is not finite once parsed (%s) is a 400 naming the field',
    async (_what, payload, path) => {
      const tenant = await createTenant(t);
      const res = await t.app.inject({
        method: 'POST',
        url: `${API_PREFIX}/apikeys`,
        headers: { authorization: `Bearer ${tenant.owner.token}`, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        code: 'BAD_REQUEST',
        message: 'Invalid input data',
        issues: [{ path, message: `${path} must be a finite number` }],
      });
    },
  );

  it('a body nested deeper than 100 levels is a 400, not a stack overflow', async () => {
    const tenant = await createTenant(t);
    const depth = 100_000;
    const res = await t.app.inject({
      method: 'POST',
      url: `${API_PREFIX}/apikeys`,
      headers: { authorization: `Bearer ${tenant.owner.token}`, 'content-type': 'application/json' },
      payload: `{"name":"x","data":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(errorText(res.json())).toMatch(/deeper than 100 levels/);
  });

  it('a JSON body with a __proto__ or constructor.prototype key is refused', async () => {
    const tenant = await createTenant(t);
    for (const payload of [
      '{"name":"x","__proto__":{"admin":true}}',
      '{"name":"x","constructor":{"prototype":{}}}',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: `${API_PREFIX}/apikeys`,
        headers: { authorization: `Bearer ${tenant.owner.token}`, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().code).toBe('BAD_REQUEST');
    }
  });

  it('a malformed percent-escape in the path is a 404 with the error body', async () => {
    const tenant = await createTenant(t);
    const res = await api(t, 'GET', '/datasets/%E0%A4%A/export', {
      token: tenant.owner.token,
      headers: { 'x-request-id': 'bad-url-1' },
    });
    expect(res.status).toBe(404);
    expect(res.headers['x-request-id']).toBe('bad-url-1');
    expect(res.body).toEqual({
      code: 'NOT_FOUND',
      message: 'Not found',
      issues: [{ message: expect.stringContaining('percent-escape') }],
    });
  });

  it('an overlong path parameter is a 404 with the error body', async () => {
    const tenant = await createTenant(t);
    const res = await api(t, 'GET', `/datasets/${'a'.repeat(500)}/export`, { token: tenant.owner.token });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Not found' });
  });

  it('a malformed HTTP request gets the error body on the socket', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    const badHeader = await rawHttp(
      port,
      'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n',
    );
    expect(badHeader.status).toBe(400);
    expect(badHeader.headers).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(badHeader.body)).toEqual({
      code: 'BAD_REQUEST',
      message: 'Invalid input data',
      issues: [{ message: expect.stringContaining('malformed') }],
    });
    const twoLengths = await rawHttp(
      port,
      'POST /api/v1/apikeys HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}',
    );
    expect(twoLengths.status).toBe(400);
    expect(JSON.parse(twoLengths.body)).toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid input data' });
    const hugeHeaders = await rawHttp(
      port,
      `GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(hugeHeaders.status).toBe(431);
    expect(JSON.parse(hugeHeaders.body)).toEqual({
      code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
      message: expect.stringContaining('headers'),
    });
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

  it('values the database refuses are a 400, not a 500', async () => {
    const { database, drop } = await openTestDatabase();
    const app = await buildApp({ database, config: testConfig() });
    const queries: Record<string, string> = {
      nul: `select ('"\\u0000"'::jsonb #>> '{}') as v`,
      range: 'select 32768::smallint as v',
    };
    app.get<{ Params: { what: string } }>('/refused/:what', { config: { public: true } }, async (request) => {
      const query = queries[request.params.what];
      if (query) return database.system((tx) => sql.raw(query).execute(tx));
      // Codes no query above raises on both engines.
      throw Object.assign(new Error('value too long for type character varying(3)'), { code: '22001' });
    });
    try {
      for (const what of ['nul', 'range', 'long']) {
        const res = await app.inject({ method: 'GET', url: `/refused/${what}` });
        expect(res.statusCode, what).toBe(400);
        expect(res.json(), what).toEqual({
          code: 'BAD_REQUEST',
          message: 'Invalid input data',
          issues: [{ message: expect.any(String) }],
        });
        expect(res.body, what).not.toMatch(/jsonb|smallint|varying/);
      }
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
    // Routes with a body document the body limit; routes without one do not.
    expect(doc.json().paths['/api/v1/apikeys'].post.responses).toHaveProperty('413');
    expect(doc.json().paths['/api/v1/apikeys'].get.responses).not.toHaveProperty('413');
    const ui = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(ui.statusCode).toBe(200);
    expect(ui.body).toContain('<html');
    // Every operation states who may call it.
    expect(doc.json().paths['/api/v1/apikeys'].post['x-min-role']).toBe('OWNER');
    expect(doc.json().paths['/api/v1/apikeys'].post.description).toContain('Only OWNER');
    expect(doc.json().paths['/api/v1/health'].get.security).toEqual([]);
  });

  it('GET / leads to the interactive docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/docs');
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

/** Sends raw bytes to the server and reads the answer until it closes the connection. */
function rawHttp(port: number, request: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
    });
    const done = () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      if (Number.isNaN(status)) reject(new Error(`no HTTP answer: ${JSON.stringify(data)}`));
      else resolve({ status, headers: head, body });
    };
    socket.on('close', done);
    socket.on('error', () => socket.destroy());
  });
}
