import { describe, expect, it } from 'vitest';
import { api, openTestDatabase, testConfig, useTestApp } from '../../../test/helpers/app.ts';
import { errorText } from '../../../test/helpers/errors.ts';
import { addMember, createTenant } from '../../../test/helpers/factories.ts';
import { buildApp } from '../../app.ts';

const t = useTestApp({ allowSignup: true });

const signupBody = (email: string) => ({
  organizationName: 'Acme Sustainability',
  name: 'Ada Owner',
  email,
  password: 'correct horse battery',
});

describe('POST /auth/signup', () => {
  it('creates an organization, its owner and a working access token', async () => {
    const res = await api(t, 'POST', '/auth/signup', { body: signupBody('ada@acme.test') });
    expect(res.status).toBe(201);
    expect(res.body.organization.name).toBe('Acme Sustainability');
    expect(res.body.user.email).toBe('ada@acme.test');
    expect(res.body.accessToken).toMatch(/^sdcs_at_[0-9A-Za-z]{43}$/);
    expect(new Date(res.body.expiresAt).getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000);
    const me = await api(t, 'GET', '/me', { token: res.body.accessToken });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ role: 'OWNER', organization: { id: res.body.organization.id } });
  });

  it('refuses an e-mail that already has an account (409), case-insensitively', async () => {
    await api(t, 'POST', '/auth/signup', { body: signupBody('twice@acme.test') });
    const again = await api(t, 'POST', '/auth/signup', { body: signupBody('TWICE@acme.test') });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');
  });

  it('names each invalid field (400)', async () => {
    const res = await api(t, 'POST', '/auth/signup', {
      body: { organizationName: '', name: 'x', email: 'not-an-email', password: 'short', extra: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    const paths = res.body.issues.map((i: { path: string }) => i.path).sort();
    expect(paths).toEqual(['email', 'extra', 'organizationName', 'password']);
  });

  it('is refused when sign-up is disabled (403)', async () => {
    const previous = t.config.allowSignup;
    t.config.allowSignup = false;
    try {
      const res = await api(t, 'POST', '/auth/signup', { body: signupBody('closed@acme.test') });
      expect(res.status).toBe(403);
    } finally {
      t.config.allowSignup = previous;
    }
  });
});

describe('POST /auth/login and /auth/logout', () => {
  it('issues a token for the right password only', async () => {
    await api(t, 'POST', '/auth/signup', { body: signupBody('login@acme.test') });
    const wrong = await api(t, 'POST', '/auth/login', {
      body: { email: 'login@acme.test', password: 'nope-nope' },
    });
    expect(wrong.status).toBe(401);
    const unknown = await api(t, 'POST', '/auth/login', {
      body: { email: 'nobody@acme.test', password: 'whatever1' },
    });
    expect(unknown.status).toBe(401);
    expect(errorText(unknown.body)).toBe(errorText(wrong.body));
    const ok = await api(t, 'POST', '/auth/login', {
      body: { email: 'LOGIN@acme.test', password: 'correct horse battery' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.organizations).toHaveLength(1);
    const me = await api(t, 'GET', '/me', { token: ok.body.accessToken });
    expect(me.body.user.email).toBe('login@acme.test');
    expect(me.body.credential).toBe('token');
  });

  it('chooses the organization given, and refuses one the user is not in (400)', async () => {
    const first = await api(t, 'POST', '/auth/signup', { body: signupBody('multi@acme.test') });
    const other = await createTenant(t);
    await t.database.system((tx) =>
      tx
        .insertInto('memberships')
        .values({ organization_id: other.organizationId, user_id: first.body.user.id, role: 'VIEWER' })
        .execute(),
    );
    const res = await api(t, 'POST', '/auth/login', {
      body: {
        email: 'multi@acme.test',
        password: 'correct horse battery',
        organizationId: other.organizationId,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.organizationId).toBe(other.organizationId);
    const me = await api(t, 'GET', '/me', { token: res.body.accessToken });
    expect(me.body.role).toBe('VIEWER');
    const stranger = await createTenant(t);
    const refused = await api(t, 'POST', '/auth/login', {
      body: {
        email: 'multi@acme.test',
        password: 'correct horse battery',
        organizationId: stranger.organizationId,
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.issues[0].path).toBe('organizationId');
  });

  it('logout revokes the token it was called with', async () => {
    const s = await api(t, 'POST', '/auth/signup', { body: signupBody('bye@acme.test') });
    const out = await api(t, 'POST', '/auth/logout', { token: s.body.accessToken });
    expect(out.status).toBe(200);
    expect((await api(t, 'GET', '/me', { token: s.body.accessToken })).status).toBe(401);
  });

  it('logout with an API key is a 400 that points to key revocation', async () => {
    const tenant = await createTenant(t);
    const res = await api(t, 'POST', '/auth/logout', { token: tenant.apiKey });
    expect(res.status).toBe(400);
    expect((await api(t, 'GET', '/me', { token: tenant.apiKey })).status).toBe(200);
  });
});

describe('access tokens', () => {
  it('expire', async () => {
    const tenant = await createTenant(t);
    await t.database.system((tx) =>
      tx
        .updateTable('access_tokens')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('user_id', '=', tenant.viewer.userId)
        .execute(),
    );
    const res = await api(t, 'GET', '/me', { token: tenant.viewer.token });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it('stop working when the membership is pending', async () => {
    const tenant = await createTenant(t);
    const member = await addMember(t, tenant.organizationId, 'COLLECTOR');
    await t.database.system((tx) =>
      tx.updateTable('memberships').set({ status: 'pending' }).where('user_id', '=', member.userId).execute(),
    );
    expect((await api(t, 'GET', '/me', { token: member.token })).status).toBe(401);
  });

  it('are stored only as a hash', async () => {
    const s = await api(t, 'POST', '/auth/signup', { body: signupBody('hash@acme.test') });
    const rows = await t.database.system((tx) =>
      tx.selectFrom('access_tokens').select('token_hash').where('user_id', '=', s.body.user.id).execute(),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.token_hash).not.toContain(s.body.accessToken);
  });
});

describe('GET /me', () => {
  it('marks platform administrators from SDCS_ADMIN_EMAILS', async () => {
    const tenant = await createTenant(t);
    const admin = await addMember(t, tenant.organizationId, 'OWNER', 'Admin@Platform.test');
    expect((await api(t, 'GET', '/me', { token: admin.token })).body.isAdmin).toBe(true);
    expect((await api(t, 'GET', '/me', { token: tenant.owner.token })).body.isAdmin).toBe(false);
  });
});

describe('attempt limits', () => {
  it('answer 429 with Retry-After once a client has used up its login attempts for the minute', async () => {
    const { database, drop } = await openTestDatabase();
    const app = await buildApp({ database, config: testConfig({ authAttemptsPerMinute: 3 }) });
    const ctx = { app, database, config: testConfig() };
    try {
      const attempt = () =>
        api(ctx, 'POST', '/auth/login', { body: { email: 'nobody@acme.test', password: 'wrong-password' } });
      for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401);
      const limited = await attempt();
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // Authenticated routes are not counted.
      expect((await api(ctx, 'GET', '/health')).status).toBe(200);
    } finally {
      await app.close();
      await drop();
    }
  });

  it('count per client behind a trusted proxy (SDCS_TRUST_PROXY), and per proxy without it', async () => {
    const { database, drop } = await openTestDatabase();
    const login = (
      ctx: { app: typeof t.app; database: typeof database; config: ReturnType<typeof testConfig> },
      client: string,
    ) =>
      api(ctx, 'POST', '/auth/login', {
        body: { email: 'nobody@acme.test', password: 'wrong-password' },
        headers: { 'x-forwarded-for': client },
      });
    // In-process requests come from 127.0.0.1: the "proxy" here.
    const behind = await buildApp({
      database,
      config: testConfig({ authAttemptsPerMinute: 2, trustProxy: 'loopback' }),
    });
    const direct = await buildApp({ database, config: testConfig({ authAttemptsPerMinute: 2 }) });
    try {
      const b = { app: behind, database, config: testConfig() };
      for (let i = 0; i < 2; i++) expect((await login(b, '203.0.113.7')).status).toBe(401);
      expect((await login(b, '203.0.113.7')).status).toBe(429);
      // Another viewer behind the same proxy keeps its own attempts.
      expect((await login(b, '198.51.100.9')).status).toBe(401);

      // Not trusted: the header is ignored and everyone shares the proxy's address.
      const d = { app: direct, database, config: testConfig() };
      for (let i = 0; i < 2; i++) expect((await login(d, `192.0.2.${i}`)).status).toBe(401);
      expect((await login(d, '192.0.2.99')).status).toBe(429);
    } finally {
      await behind.close();
      await direct.close();
      await drop();
    }
  });
});
