// A credential is resolved on every request, in the statement that opens the request's
// transaction (reads) or alone (requests with a body): nothing is cached, so a revoked key, a
// logged-out token, a removed member or a changed role counts from the very next request, on
// every process. "Every process" is shown by a second app over the same database.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, buildApp } from '../../src/app.ts';

import { api, type TestContext, useTestApp } from '../helpers/app.ts';
import { addMember, createTenant, issueToken, type Tenant } from '../helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
let other: FastifyInstance;

beforeAll(async () => {
  tenant = await createTenant(t);
  other = await buildApp({ database: t.database, config: t.config });
  await other.ready();
});
afterAll(async () => {
  await other?.close();
});

/** The same call on both apps (two processes sharing the database). */
async function onBoth(method: 'GET' | 'POST', url: string, token: string, body?: unknown) {
  const second = { ...t, app: other } as TestContext;
  return [
    (await api(t, method, url, { token, body })).status,
    (await api(second, method, url, { token, body })).status,
  ];
}

describe('credentials count from the very next request', () => {
  it('a revoked API key: 200 on both processes, then 401 on both', async () => {
    const created = await api(t, 'POST', '/apikeys', {
      token: tenant.owner.token,
      body: { name: 'soon revoked' },
    });
    const key = created.body.apiKey as string;
    expect(await onBoth('GET', '/sites', key)).toEqual([200, 200]);
    expect(await onBoth('POST', '/sites', key, { name: 'Before revocation' })).toEqual([200, 200]);
    const revoked = await api(t, 'DELETE', `/apikeys/${created.body.id}`, { token: tenant.owner.token });
    expect(revoked.status).toBe(200);
    expect(await onBoth('GET', '/sites', key)).toEqual([401, 401]);
    expect(await onBoth('POST', '/sites', key, { name: 'After revocation' })).toEqual([401, 401]);
  });

  it('a logged-out access token: 401 on the next request', async () => {
    const token = await issueToken(t, tenant.organizationId, tenant.viewer.userId);
    expect(await onBoth('GET', '/me', token)).toEqual([200, 200]);
    const out = await api(t, 'POST', '/auth/logout', { token });
    expect(out.status).toBe(200);
    expect(await onBoth('GET', '/me', token)).toEqual([401, 401]);
  });

  it('a removed member: their token and their API key stop at once', async () => {
    const member = await addMember(t, tenant.organizationId, 'OWNER');
    const created = await api(t, 'POST', '/apikeys', { token: member.token, body: { name: 'member key' } });
    expect(created.status).toBe(200);
    const key = created.body.apiKey as string;
    expect(await onBoth('GET', '/sites', member.token)).toEqual([200, 200]);
    expect(await onBoth('GET', '/sites', key)).toEqual([200, 200]);
    const removed = await api(t, 'DELETE', `/organizations/current/members/${member.userId}`, {
      token: tenant.owner.token,
    });
    expect(removed.status).toBe(200);
    expect(await onBoth('GET', '/sites', member.token)).toEqual([401, 401]);
    expect(await onBoth('GET', '/sites', key)).toEqual([401, 401]);
    expect(await onBoth('POST', '/sites', key, { name: 'Removed' })).toEqual([401, 401]);
  });

  it('a role change: the new role decides the very next request (403 below the route role)', async () => {
    const member = await addMember(t, tenant.organizationId, 'MANAGER');
    expect(await onBoth('GET', '/organizations/current/members', member.token)).toEqual([200, 200]);
    const changed = await api(t, 'PATCH', `/organizations/current/members/${member.userId}`, {
      token: tenant.owner.token,
      body: { role: 'VIEWER' },
    });
    expect(changed.status).toBe(200);
    expect(await onBoth('GET', '/organizations/current/members', member.token)).toEqual([403, 403]);
    expect(await onBoth('POST', '/sites', member.token, { name: 'Viewer' })).toEqual([403, 403]);
    expect(await onBoth('GET', '/sites', member.token)).toEqual([200, 200]);
    const me = await api(t, 'GET', '/me', { token: member.token });
    expect(me.body.role).toBe('VIEWER');
  });

  it('a refused read leaves no transaction open: the next request is served', async () => {
    // On PGlite (one connection) a transaction left open would make the next request wait forever.
    expect((await api(t, 'GET', '/sites', { token: 'sdcs_unknown' })).status).toBe(401);
    expect(
      (await api(t, 'GET', '/organizations/current/members', { token: tenant.viewer.token })).status,
    ).toBe(403);
    expect((await api(t, 'GET', '/sites?unknownParameter=1', { token: tenant.viewer.token })).status).toBe(
      400,
    );
    const res = await t.app.inject({
      method: 'GET',
      url: `${API_PREFIX}/sites`,
      headers: { authorization: `Bearer ${tenant.viewer.token}` },
    });
    expect(res.statusCode).toBe(200);
  });
});
