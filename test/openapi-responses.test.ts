import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, buildApp } from '../src/app.ts';
import type { Role } from '../src/db/schema/index.ts';
import { rolesBelow } from '../src/domain/roles.ts';
import { type TestContext, testConfig, useTestApp } from './helpers/app.ts';
import { createTenant, issueToken, type Tenant } from './helpers/factories.ts';
import { invitationHelpers, invitationTestConfig, newEmail } from './helpers/invitations.ts';
import { multipart } from './helpers/media-world.ts';
import { dereferenced, documentChecker } from './helpers/openapi-check.ts';
import { memberOf, type SecurityCase } from './security/matrix.ts';

/**
 * Every answer checked against the served OpenAPI document (issue 26): for every operation (the
 * security matrix's cases), its success, 401, 403 for each role below its own, 404 for another
 * tenant's record, 400 for an unknown query parameter, 413 for a body over the limit, and 429
 * once its rate limit is spent. The status, the content type, the JSON body and every header must
 * be in the document. The fuzz suite checks the same of its generated requests.
 */
const modules = import.meta.glob<{ cases: SecurityCase[] }>('./security/cases/*.ts', { eager: true });
const cases = Object.values(modules).flatMap((m) => m.cases);

// The rate limit is on (high), so that its RateLimit-* headers are sent and checked.
const t = useTestApp({
  // E-mails in an outbox of the file's own (the invitation's token is read from it).
  dataDir: invitationTestConfig().dataDir,
  rateLimitPerMinute: 1_000_000,
  bodyLimitBytes: 64 * 1024,
  largeBodyLimitBytes: 128 * 1024,
  allowSignup: true,
});
let a: Tenant;
let b: Tenant;
let doc: Record<string, any>;
let check: ReturnType<typeof documentChecker>;
const problems: string[] = [];
/** Statuses seen per operation, to show that each kind of answer was met. */
const seen = new Map<string, Set<number>>();

beforeAll(async () => {
  a = await createTenant(t, 'Tenant A');
  b = await createTenant(t, 'Tenant B');
  doc = dereferenced(t.app.swagger() as Record<string, any>);
  check = documentChecker(doc);
});

const routeKey = (c: SecurityCase) => `${c.method} ${API_PREFIX}${c.route.replace(/:(\w+)/g, '{$1}')}`;

function declaredRole(c: SecurityCase): Role | 'public' {
  const op = doc['paths'][`${API_PREFIX}${c.route.replace(/:(\w+)/g, '{$1}')}`]?.[c.method.toLowerCase()];
  if (!op) throw new Error(`${routeKey(c)} is not in the document`);
  return op['security']?.length === 0 ? 'public' : (op['x-min-role'] as Role);
}

async function send(
  app: FastifyInstance,
  c: SecurityCase,
  call: {
    url: string;
    body?: unknown;
    headers?: Record<string, string> | undefined;
    token?: string | undefined;
  },
) {
  const headers: Record<string, string> = { ...call.headers };
  if (call.token) headers['authorization'] = `Bearer ${call.token}`;
  const url = `${API_PREFIX}${call.url}`;
  const payload =
    call.body === undefined
      ? {}
      : {
          payload:
            typeof call.body === 'string' || Buffer.isBuffer(call.body)
              ? call.body
              : JSON.stringify(call.body),
        };
  if (call.body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const res = await app.inject({ method: c.method, url, headers, ...payload });
  problems.push(
    ...check(c.method, url, { statusCode: res.statusCode, headers: res.headers, body: res.body }),
  );
  const key = routeKey(c);
  seen.set(key, (seen.get(key) ?? new Set()).add(res.statusCode));
  return res;
}

async function tokenOf(c: SecurityCase, tenant: Tenant, role: Role): Promise<string> {
  const member = memberOf(tenant, role);
  return c.consumesToken ? issueToken(t as TestContext, tenant.organizationId, member.userId) : member.token;
}

describe.each(cases)('$method $route: every answer is in the document', (c) => {
  it('success, 401, 403, 404, 400 and 413', async () => {
    const role = declaredRole(c);
    const minRole: Role = role === 'public' ? 'OWNER' : role;
    const prepared = await c.prepare(t, a);
    const ok = await send(t.app, c, {
      ...prepared,
      token: role === 'public' ? undefined : await tokenOf(c, a, minRole),
    });
    // The matrix's calls of public routes carry no secret (their successes are below).
    if (role !== 'public') expect(ok.statusCode, ok.body).toBe(c.successStatus ?? 200);

    if (role !== 'public') {
      const anonymous = await send(t.app, c, await c.prepare(t, a));
      expect(anonymous.statusCode).toBe(401);
      for (const below of rolesBelow(role)) {
        const refused = await send(t.app, c, {
          ...(await c.prepare(t, a)),
          token: await tokenOf(c, a, below),
        });
        expect(refused.statusCode).toBe(403);
      }
      if (c.tenantRecord) {
        const other = await send(t.app, c, { ...(await c.prepare(t, b)), token: a.owner.token });
        expect(other.statusCode).toBe(404);
      }
    }
    const token = role === 'public' ? undefined : await tokenOf(c, a, minRole);
    const again = await c.prepare(t, a);
    const unknown = await send(t.app, c, {
      ...again,
      url: `${again.url}${again.url.includes('?') ? '&' : '?'}noSuchParameter=1`,
      token,
    });
    expect(unknown.statusCode).toBe(400);
    const op = doc['paths'][`${API_PREFIX}${c.route.replace(/:(\w+)/g, '{$1}')}`][c.method.toLowerCase()];
    if (op['requestBody']?.content?.['application/json']) {
      const big = await send(t.app, c, {
        url: (await c.prepare(t, a)).url,
        body: JSON.stringify({ padding: 'x'.repeat(t.config.largeBodyLimitBytes) }),
        token,
      });
      expect(big.statusCode).toBe(413);
    }
  });
});

describe('the public routes’ successes', () => {
  const route = (method: SecurityCase['method'], path: string) =>
    cases.find((c) => c.method === method && c.route === path)!;

  it('sign-up, login, a file uploaded and read back through its signed URLs, an invitation accepted', async () => {
    const email = `resp-${Date.now()}@example.com`;
    const account = { email, password: 'correct horse battery staple' };
    const signup = await send(t.app, route('POST', '/auth/signup'), {
      url: '/auth/signup',
      body: { organizationName: 'Response checks', name: 'Ada', ...account },
    });
    expect(signup.statusCode, signup.body).toBe(201);
    const login = await send(t.app, route('POST', '/auth/login'), { url: '/auth/login', body: account });
    expect(login.statusCode, login.body).toBe(200);

    const file = Buffer.from('%PDF-1.4\n%%EOF\n');
    const presigned = await t.app.inject({
      method: 'POST',
      url: `${API_PREFIX}/media/presigned-url`,
      headers: { authorization: `Bearer ${a.collector.token}` },
      payload: { fileName: 'bill.pdf', entityId: 'e-1', fieldName: 'doc', fileSize: file.length },
    });
    const { fields, mediaId } = presigned.json();
    const form = multipart(Object.entries(fields as Record<string, string>), {
      data: file,
      contentType: 'application/pdf',
    });
    const upload = await send(t.app, route('POST', '/media/upload'), {
      url: '/media/upload',
      body: form.body,
      headers: { 'content-type': form.contentType },
    });
    expect(upload.statusCode, upload.body).toBe(201);
    const media = await t.app.inject({
      method: 'GET',
      url: `${API_PREFIX}/media/${mediaId}`,
      headers: { authorization: `Bearer ${a.collector.token}` },
    });
    const download = new URL(media.json().downloadUrl);
    const content = await send(t.app, route('GET', '/media/:id/content'), {
      url: `${download.pathname.slice(API_PREFIX.length)}${download.search}`,
    });
    expect(content.statusCode).toBe(200);
    expect(content.rawPayload.equals(file)).toBe(true);

    const invitee = newEmail();
    const mail = invitationHelpers(t);
    const invited = await mail.invite(a.owner.token, { email: invitee, assignedSiteIds: [], role: 'VIEWER' });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    const accepted = await send(t.app, route('POST', '/invitations/accept'), {
      url: '/invitations/accept',
      body: { token: await mail.tokenMailedTo(invitee), name: 'Lin', password: 'a long enough password' },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    // The invitation page's lookup, once the invitation is used: its fields null, as declared.
    const described = await send(t.app, route('POST', '/invitations/describe'), {
      url: '/invitations/describe',
      body: { token: await mail.tokenMailedTo(invitee) },
    });
    expect(described.statusCode, described.body).toBe(200);
    expect(described.json().state).toBe('accepted');
  });
});

describe('other media types', () => {
  it('a dataset export as the CSV file itself (Accept: text/csv), with its Content-Disposition', async () => {
    const c = cases.find((x) => x.method === 'GET' && x.route === '/datasets/:datasetId/export')!;
    const prepared = await c.prepare(t, a);
    const res = await send(t.app, c, {
      ...prepared,
      token: a.manager.token,
      headers: { accept: 'text/csv' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(/^attachment/);
  });
});

describe('429 once the rate limit is spent', () => {
  let limited: FastifyInstance;
  beforeAll(async () => {
    limited = await buildApp({
      database: t.database,
      config: testConfig({ rateLimitPerMinute: 1, authAttemptsPerMinute: 1 }),
    });
    await limited.ready();
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('every operation answers 429 with Retry-After and RateLimit-* as its document says', async () => {
    for (const c of cases) {
      const role = declaredRole(c);
      const op = doc['paths'][`${API_PREFIX}${c.route.replace(/:(\w+)/g, '{$1}')}`][c.method.toLowerCase()];
      if (!op['responses']['429']) continue; // exempt (health checks)
      // The upload has a limit of its own (600 a minute per address), not spent in this test.
      if (c.route === '/media/upload') continue;
      // A credential of its own, spent by one call; public routes count per client address.
      const token =
        role === 'public' ? undefined : await issueToken(t, a.organizationId, memberOf(a, role).userId);
      const call = { url: (await c.prepare(t, a)).url.replace(/\?.*$/, ''), token };
      // The credential's one request of the minute, spent elsewhere (so a logout ends nothing).
      if (token) {
        await limited.inject({
          method: 'GET',
          url: `${API_PREFIX}/me`,
          headers: { authorization: `Bearer ${token}` },
        });
      }
      let res = await send(limited, c, call);
      for (let i = 0; i < 3 && res.statusCode !== 429; i++) res = await send(limited, c, call);
      expect(res.statusCode, `${routeKey(c)}: ${res.body}`).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
  }, 120_000);
});

describe('the whole run', () => {
  it('found no status, header or body outside the document', () => {
    expect(problems).toEqual([]);
    // Each operation met its success and its error answers.
    expect(seen.size).toBe(cases.length);
  });
});

describe('the document itself', () => {
  it('states shared headers, the error body and common error answers once, by reference', () => {
    const served = t.app.swagger() as Record<string, any>;
    const text = JSON.stringify(served);
    // Inline, the seven common headers over a thousand responses made it 2 MB, slow in /docs.
    expect(text.length).toBeLessThan(800_000);
    expect(Object.keys(served['components']['headers'])).toContain('X-Request-Id');
    expect(served['components']['schemas']['Error']['required']).toEqual(['code', 'message']);
    const apikeys = served['paths'][`${API_PREFIX}/apikeys`];
    expect(apikeys['post']['responses']['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(apikeys['post']['responses']['403']).toEqual({ $ref: '#/components/responses/ForbiddenOwner' });
    expect(served['components']['responses']['Unauthorized']['headers']['X-Request-Id']).toEqual({
      $ref: '#/components/headers/X-Request-Id',
    });
    // Every reference resolves (dereferenced throws on one that does not).
    expect(() => dereferenced(served)).not.toThrow();
  });

  it('each role check’s 403 example is the answer the role just below gets', async () => {
    const served = t.app.swagger() as Record<string, any>;
    const exampleOf = (name: string) =>
      /your role is [A-Z]+/.exec(JSON.stringify(served['components']['responses'][name]))?.[0];
    expect(exampleOf('ForbiddenOwner')).toBe('your role is MANAGER');
    expect(exampleOf('ForbiddenManager')).toBe('your role is COLLECTOR');
    expect(exampleOf('ForbiddenCollector')).toBe('your role is VIEWER');
    // POST /sites needs MANAGER: the collector gets the example's message, word for word.
    const tenant = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `${API_PREFIX}/sites`,
      headers: { authorization: `Bearer ${tenant.collector.token}` },
      payload: { name: 'Plant' },
    });
    expect(res.statusCode).toBe(403);
    const example = JSON.stringify(served['components']['responses']['ForbiddenManager']);
    expect(example).toContain(JSON.stringify(res.json().issues[0].message));
  });

  it('every operation declares the statuses and headers its access and limits imply', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc['paths'])) {
      for (const [method, op] of Object.entries<Record<string, any>>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const responses = op['responses'] as Record<string, any>;
        const isPublic = op['security']?.length === 0;
        const expected = ['400', '500', '503'];
        if (!isPublic) expected.push('401');
        if (op['x-min-role'] && op['x-min-role'] !== 'VIEWER') expected.push('403');
        if (path.includes('{')) expected.push('404');
        if (op['requestBody']?.content?.['application/json']) expected.push('413');
        if (!path.endsWith('/health/live') && !path.endsWith('/health/ready')) expected.push('429');
        for (const status of expected) if (!responses[status]) missing.push(`${where}: no ${status}`);
        // A browser's step (the OIDC start and callback) succeeds with a redirect.
        if (!Object.keys(responses).some((s) => s.startsWith('2') || s === '303'))
          missing.push(`${where}: no success`);
        for (const [status, response] of Object.entries<Record<string, any>>(responses)) {
          if (!response['headers']?.['X-Request-Id']) missing.push(`${where} ${status}: no X-Request-Id`);
          if (!response['headers']?.['RateLimit-Remaining'])
            missing.push(`${where} ${status}: no RateLimit-*`);
        }
        if (responses['429'] && !responses['429'].headers?.['Retry-After'])
          missing.push(`${where}: 429 without Retry-After`);
        for (const param of op['parameters'] ?? []) {
          if (param.in === 'path' && /^(id|\w+Id)$/.test(param.name) && param.schema?.format !== 'uuid')
            missing.push(`${where}: path parameter ${param.name} without format uuid`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
