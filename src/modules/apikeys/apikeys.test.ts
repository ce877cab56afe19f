import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { errorText } from '../../../test/helpers/errors.ts';
import { createTenant, type Tenant } from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant(t);
});

describe('API keys', () => {
  it('are shown once, listed by their SHA-256, and work as bearer credentials', async () => {
    const created = await api(t, 'POST', '/apikeys', { token: tenant.owner.token, body: { name: 'ETL' } });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(['apiKey', 'createdAt', 'id', 'name']);
    expect(created.body.apiKey).toMatch(/^sdcs_[0-9A-Za-z]{43}$/);

    const list = await api(t, 'GET', '/apikeys', { token: tenant.owner.token });
    expect(list.status).toBe(200);
    const listed = list.body.find((k: { id: string }) => k.id === created.body.id);
    expect(listed.hashedKey).toBe(createHash('sha256').update(created.body.apiKey).digest('hex'));
    expect(listed).not.toHaveProperty('apiKey');
    expect(JSON.stringify(list.body)).not.toContain(created.body.apiKey);
    expect(listed.lastUsedAt).toBeNull();

    const me = await api(t, 'GET', '/me', { token: created.body.apiKey });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ credential: 'apikey', role: 'OWNER', user: { id: tenant.owner.userId } });

    const after = await api(t, 'GET', '/apikeys', { token: tenant.owner.token });
    const used = after.body.find((k: { id: string }) => k.id === created.body.id);
    expect(Date.parse(used.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('stop working once revoked, and disappear from the list', async () => {
    const created = await api(t, 'POST', '/apikeys', { token: tenant.owner.token, body: { name: 'temp' } });
    const del = await api(t, 'DELETE', `/apikeys/${created.body.id}`, { token: tenant.owner.token });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true });
    expect((await api(t, 'GET', '/me', { token: created.body.apiKey })).status).toBe(401);
    const list = await api(t, 'GET', '/apikeys', { token: tenant.owner.token });
    expect(list.body.map((k: { id: string }) => k.id)).not.toContain(created.body.id);
    const again = await api(t, 'DELETE', `/apikeys/${created.body.id}`, { token: tenant.owner.token });
    expect(again.status).toBe(404);
  });

  it('404 for unknown or malformed ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await api(t, 'DELETE', `/apikeys/${id}`, { token: tenant.owner.token });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('need a name of at least one character, sent as a string, and nothing else (400)', async () => {
    const bodies = [{}, { name: '' }, { name: 5 }, { name: 'ok', extra: true }];
    for (const body of bodies) {
      const res = await api(t, 'POST', '/apikeys', { token: tenant.owner.token, body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.issues.length).toBeGreaterThan(0);
    }
  });

  it('belong to the owner: managers get 403', async () => {
    const res = await api(t, 'GET', '/apikeys', { token: tenant.manager.token });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'FORBIDDEN', message: 'Insufficient access' });
    expect(errorText(res.body)).toMatch(/owners/);
  });

  it('act as their owner: a key stops working when its owner leaves the organization', async () => {
    const other = await createTenant(t);
    await t.database.system((tx) =>
      tx.deleteFrom('memberships').where('user_id', '=', other.owner.userId).execute(),
    );
    expect((await api(t, 'GET', '/me', { token: other.apiKey })).status).toBe(401);
  });
});
