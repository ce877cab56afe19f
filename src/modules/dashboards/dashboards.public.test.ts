import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/helpers/app.ts';
import { useClockTestApp } from '../../../test/helpers/clock-app.ts';
import { createSite, createTenant, type Tenant } from '../../../test/helpers/factories.ts';
import { ATTEMPT_WINDOW_MS, MAX_CODE_ATTEMPTS } from './dashboards.access.ts';
import { publicHead } from './dashboards.public.ts';

const t = useClockTestApp(new Date('2025-06-15T12:00:00Z'));
let tenant: Tenant;
let site: string;
let child: string;
let other: string;
let indicatorId: string;

beforeAll(async () => {
  tenant = await createTenant(t);
  site = await createSite(t, tenant.organizationId, { name: 'Plant' });
  child = await createSite(t, tenant.organizationId, { name: 'Line', parentId: site });
  other = await createSite(t, tenant.organizationId, { name: 'Other' });
  const res = await api(t, 'POST', '/indicators', {
    token: tenant.owner.token,
    body: { name: 'Constant', expressionParts: [{ type: 'number', value: '1' }] },
  });
  indicatorId = res.body.id;
});

const later = (ms: number) => {
  t.now = new Date(t.now.getTime() + ms);
};

async function dashboard(body: Record<string, unknown>): Promise<string> {
  const res = await api(t, 'POST', '/dashboards', {
    token: tenant.owner.token,
    body: { name: 'Shared', isPublic: true, ...body },
  });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  await api(t, 'POST', `/dashboards/${res.body.id}/widgets`, {
    token: tenant.owner.token,
    body: { type: 'VALUE', title: 'One', indicatorIds: [indicatorId] },
  });
  return res.body.id;
}

const open = (id: string, grant?: string, query = '') =>
  api(t, 'GET', `/public/dashboards/${id}${query}`, grant ? { token: grant } : {});
const access = (id: string, body: Record<string, unknown>, ip?: string) =>
  t.app
    .inject({
      method: 'POST',
      url: `/api/v1/public/dashboards/${id}/access`,
      payload: body,
      ...(ip ? { remoteAddress: ip } : {}),
    })
    .then((r) => ({ status: r.statusCode, body: r.json(), headers: r.headers }));
const lastCode = () => /\b(\d{6})\b/.exec(t.sent.at(-1)!.text)![1]!;

describe('public dashboards', () => {
  it('opens a public dashboard without credential: fields, widgets, data, computedAt; never the gate secrets', async () => {
    const id = await dashboard({ description: 'For all' });
    const res = await open(id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.dashboard).toMatchObject({
      id,
      name: 'Shared',
      description: 'For all',
      hasPassword: false,
    });
    expect(Object.keys(res.body.dashboard)).not.toContain('publicAccessEmails');
    expect(res.body.widgets).toHaveLength(1);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].series[0].total).toMatchObject({ value: 1, formatted: '1' });
    expect(res.body.sites).toEqual([]);
    expect(res.body.computedAt).toBe(t.now.toISOString());
    expect(await publicHead(t.database, id)).toEqual({
      id,
      name: 'Shared',
      description: 'For all',
      requiresPassword: false,
      requiresEmail: false,
    });
  });

  it('404 for a private, unknown or malformed dashboard', async () => {
    const priv = await api(t, 'POST', '/dashboards', { token: tenant.owner.token, body: { name: 'Mine' } });
    expect((await open(priv.body.id)).status).toBe(404);
    expect((await open('7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e99')).status).toBe(404);
    expect((await open('nope')).status).toBe(404);
    expect((await access(priv.body.id, { password: 'x' })).status).toBe(404);
    expect(await publicHead(t.database, priv.body.id)).toBeNull();
  });

  it('password gate: 401 with the gates, wrong password 401, right one a grant that opens it', async () => {
    const id = await dashboard({ password: 'open sesame' });
    const closed = await open(id);
    expect(closed.status).toBe(401);
    expect(closed.body).toMatchObject({
      code: 'UNAUTHORIZED',
      issues: [],
      requiresPassword: true,
      requiresEmail: false,
    });
    const wrong = await access(id, { password: 'open sesam' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ code: 'UNAUTHORIZED', requiresPassword: true });
    expect((await access(id, {})).status).toBe(401);
    const ok = await access(id, { password: 'open sesame' });
    expect(ok.status).toBe(200);
    expect(ok.body.accessToken).toMatch(/^sdcs_dg_/);
    expect(ok.body.expiresAt).toBe(new Date(t.now.getTime() + 3_600_000).toISOString());
    expect((await open(id, ok.body.accessToken)).status).toBe(200);
    expect((await open(id, 'sdcs_dg_forged')).status).toBe(401);
  });

  it('the grant opens nothing else: the member API refuses it with 401, another dashboard too', async () => {
    const id = await dashboard({ password: 'open sesame' });
    const otherId = await dashboard({ password: 'open sesame' });
    const { accessToken } = (await access(id, { password: 'open sesame' })).body;
    for (const url of ['/me', '/dashboards', `/dashboards/${id}`, `/dashboards/${id}/data`, '/sites']) {
      expect((await api(t, 'GET', url, { token: accessToken })).status, url).toBe(401);
    }
    expect((await open(otherId, accessToken)).status).toBe(401);
  });

  it('a grant expires after an hour', async () => {
    const id = await dashboard({ password: 'open sesame' });
    const { accessToken } = (await access(id, { password: 'open sesame' })).body;
    later(59 * 60_000);
    expect((await open(id, accessToken)).status).toBe(200);
    later(2 * 60_000);
    expect((await open(id, accessToken)).status).toBe(401);
  });

  it('changing or removing the password ends the grants issued before', async () => {
    const id = await dashboard({ password: 'open sesame' });
    const first = (await access(id, { password: 'open sesame' })).body.accessToken;
    await api(t, 'PUT', `/dashboards/${id}`, {
      token: tenant.owner.token,
      body: { password: 'new secret!' },
    });
    expect((await open(id, first)).status).toBe(401);
    expect((await access(id, { password: 'open sesame' })).status).toBe(401);
    const second = (await access(id, { password: 'new secret!' })).body.accessToken;
    expect((await open(id, second)).status).toBe(200);
    // Adding an e-mail list also ends them; removing every gate opens the dashboard to all.
    await api(t, 'PUT', `/dashboards/${id}`, {
      token: tenant.owner.token,
      body: { publicAccessDomains: ['example.com'] },
    });
    expect((await open(id, second)).status).toBe(401);
    await api(t, 'PUT', `/dashboards/${id}`, {
      token: tenant.owner.token,
      body: { password: null, publicAccessDomains: [] },
    });
    expect((await open(id)).status).toBe(200);
  });

  it('e-mail gate: an allowed address gets a 6-digit code (202), the code once gives a grant', async () => {
    const id = await dashboard({
      publicAccessEmails: ['boss@partner.org'],
      publicAccessDomains: ['example.com'],
    });
    expect(await publicHead(t.database, id)).toMatchObject({ requiresPassword: false, requiresEmail: true });
    const closed = await open(id);
    expect(closed.body).toMatchObject({ requiresPassword: false, requiresEmail: true });
    expect((await access(id, {})).status).toBe(401);
    const sent = await access(id, { email: 'Ada@EXAMPLE.com' });
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({
      codeSent: true,
      email: 'ada@example.com',
      expiresAt: new Date(t.now.getTime() + 600_000).toISOString(),
    });
    expect(t.sent.at(-1)!.to).toBe('ada@example.com');
    const code = lastCode();
    const wrongCode = code === '000000' ? '000001' : '000000';
    expect((await access(id, { email: 'ada@example.com', code: wrongCode })).status).toBe(401);
    const ok = await access(id, { email: 'ada@example.com', code });
    expect(ok.status).toBe(200);
    expect((await open(id, ok.body.accessToken)).status).toBe(200);
    // Used once.
    expect((await access(id, { email: 'ada@example.com', code })).status).toBe(401);
    // A listed address, any case.
    expect((await access(id, { email: 'BOSS@partner.org' })).status).toBe(202);
  });

  it('e-mail gate: an address not allowed is 403 (subdomains of a listed domain included)', async () => {
    const id = await dashboard({ publicAccessDomains: ['example.com'] });
    for (const email of ['eve@evil.com', 'eve@team.example.com', 'eve@example.com.evil.com']) {
      const res = await access(id, { email }, '10.0.0.7');
      expect(res.status, email).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
  });

  it('e-mail codes expire after 10 minutes', async () => {
    const id = await dashboard({ publicAccessDomains: ['example.com'] });
    await access(id, { email: 'ada@example.com' });
    const code = lastCode();
    later(10 * 60_000 + 1_000);
    expect((await access(id, { email: 'ada@example.com', code })).status).toBe(401);
  });

  it('both gates: the password first, then the code with the password', async () => {
    const id = await dashboard({ password: 'open sesame', publicAccessDomains: ['example.com'] });
    expect((await access(id, { email: 'ada@example.com' })).status).toBe(401);
    expect((await access(id, { email: 'ada@example.com', password: 'open sesame' })).status).toBe(202);
    const code = lastCode();
    expect((await access(id, { email: 'ada@example.com', code })).status).toBe(401);
    expect(t.sent.at(-1)!.text).toContain(code);
  });

  it('bad bodies are 400', async () => {
    const id = await dashboard({ publicAccessDomains: ['example.com'] });
    for (const body of [
      { email: 'nope' },
      { email: 'ada@example.com', code: '12345' },
      { other: 1 },
      { password: 3 },
    ]) {
      expect((await access(id, body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it(`limits refusals per dashboard and client address: the ${MAX_CODE_ATTEMPTS + 1}th is 429 with Retry-After, others still pass`, async () => {
    const id = await dashboard({ password: 'open sesame' });
    for (let i = 0; i < MAX_CODE_ATTEMPTS; i++) {
      expect((await access(id, { password: `guess ${i}` }, '10.1.1.1')).status).toBe(401);
    }
    const limited = await access(id, { password: 'open sesame' }, '10.1.1.1');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(limited.headers['retry-after'])).toBe(ATTEMPT_WINDOW_MS / 1000);
    // Another client address, and another dashboard, are not shut out.
    expect((await access(id, { password: 'open sesame' }, '10.1.1.2')).status).toBe(200);
    const otherId = await dashboard({ password: 'open sesame' });
    expect((await access(otherId, { password: 'open sesame' }, '10.1.1.1')).status).toBe(200);
    later(ATTEMPT_WINDOW_MS);
    expect((await access(id, { password: 'open sesame' }, '10.1.1.1')).status).toBe(200);
  });

  it('a deleted dashboard is 404 and its grant is refused', async () => {
    const id = await dashboard({ password: 'open sesame' });
    const { accessToken } = (await access(id, { password: 'open sesame' })).body;
    await api(t, 'DELETE', `/dashboards/${id}`, { token: tenant.owner.token });
    expect((await open(id, accessToken)).status).toBe(404);
    expect((await access(id, { password: 'open sesame' })).status).toBe(404);
    expect(await publicHead(t.database, id)).toBeNull();
    const grants = await t.database.system((tx) =>
      tx.selectFrom('dashboard_grants').select('id').where('dashboard_id', '=', id).execute(),
    );
    expect(grants).toEqual([]);
  });

  it('a filter site deleted since does not break the link', async () => {
    const gone = await createSite(t, tenant.organizationId, { name: 'Gone' });
    const id = await dashboard({ globalFilter: { siteIds: [gone] } });
    const del = await api(t, 'DELETE', `/sites/${gone}`, { token: tenant.owner.token });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    const res = await open(id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('making it private closes the link', async () => {
    const id = await dashboard({});
    await api(t, 'PUT', `/dashboards/${id}`, { token: tenant.owner.token, body: { isPublic: false } });
    expect((await open(id)).status).toBe(404);
  });

  it('site choice: only when allowed, each site within the filter (descendants included), comma-separated or repeated', async () => {
    const fixed = await dashboard({ globalFilter: { siteIds: [site] } });
    expect((await open(fixed, undefined, `?siteIds=${site}`)).status).toBe(400);
    const id = await dashboard({ publicCanFilterSites: true, globalFilter: { siteIds: [site] } });
    const view = await open(id);
    expect(view.body.sites).toEqual([
      { id: child, name: 'Line' },
      { id: site, name: 'Plant' },
    ]);
    expect((await open(id, undefined, `?siteIds=${child}`)).status).toBe(200);
    expect((await open(id, undefined, `?siteIds=${site},${child}`)).status).toBe(200);
    expect((await open(id, undefined, `?siteIds=${site}&siteIds=${child}`)).status).toBe(200);
    const outside = await open(id, undefined, `?siteIds=${child},${other}`);
    expect(outside.status).toBe(400);
    expect(outside.body.issues[0].path).toBe('siteIds.1');
    expect((await open(id, undefined, '?year=2020')).status).toBe(400);
  });

  it('caches answers a few seconds; a widget change shows at once', async () => {
    const id = await dashboard({});
    const first = await open(id);
    later(1_000);
    expect((await open(id)).body.computedAt).toBe(first.body.computedAt);
    later(5_000);
    const recomputed = await open(id);
    expect(recomputed.body.computedAt).toBe(t.now.toISOString());
    later(1_000);
    await api(t, 'POST', `/dashboards/${id}/widgets`, {
      token: tenant.owner.token,
      body: { type: 'VALUE', title: 'Two', indicatorIds: [indicatorId] },
    });
    const changed = await open(id);
    expect(changed.body.widgets).toHaveLength(2);
    expect(changed.body.computedAt).toBe(t.now.toISOString());
  });
});
