import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { errorText } from '../../../test/helpers/errors.ts';
import {
  addMember,
  assignSites,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  tenant = await createTenant(t);
  other = await createTenant(t);
});

const membersUrl = '/organizations/current/members';
const memberUrl = (userId: string) => `${membersUrl}/${userId}`;
const paths = (body: { issues?: { path: string }[] }) => (body.issues ?? []).map((i) => i.path);

/** A site tree: root > a > a1, and root > b; the manager is assigned `a`. */
async function tree(org: Tenant) {
  const root = await createSite(t, org.organizationId, { name: 'Root' });
  const a = await createSite(t, org.organizationId, { name: 'A', parentId: root });
  const a1 = await createSite(t, org.organizationId, { name: 'A1', parentId: a });
  const b = await createSite(t, org.organizationId, { name: 'B', parentId: root });
  return { root, a, a1, b };
}

describe('GET /organizations/current/members', () => {
  it('lists every member with role, status and directly assigned sites (managers and owners)', async () => {
    const org = await createTenant(t);
    const { a, b } = await tree(org);
    await assignSites(t, org.organizationId, org.collector.userId, [a, b]);

    for (const member of [org.owner, org.manager]) {
      const res = await api(t, 'GET', membersUrl, { token: member.token });
      expect(res.status).toBe(200);
      expect(res.body.map((m: { userId: string }) => m.userId).sort()).toEqual(
        [org.owner.userId, org.manager.userId, org.collector.userId, org.viewer.userId].sort(),
      );
      const collector = res.body.find((m: { userId: string }) => m.userId === org.collector.userId);
      expect(collector).toEqual({
        userId: org.collector.userId,
        email: org.collector.email,
        name: expect.any(String),
        role: 'COLLECTOR',
        status: 'active',
        siteIds: [a, b].sort(),
        createdAt: expect.stringMatching(/Z$/),
        invitationExpiresAt: null,
      });
    }
  });

  it('is refused to collectors and viewers (403) and to anonymous callers (401)', async () => {
    for (const member of [tenant.collector, tenant.viewer]) {
      expect((await api(t, 'GET', membersUrl, { token: member.token })).status).toBe(403);
    }
    expect((await api(t, 'GET', membersUrl)).status).toBe(401);
  });
});

describe('PATCH /organizations/current/members/{userId}', () => {
  it('changes role (any letter case) and replaces the site assignment', async () => {
    const org = await createTenant(t);
    const { a, a1, b } = await tree(org);
    const member = await addMember(t, org.organizationId, 'VIEWER');
    await assignSites(t, org.organizationId, member.userId, [b]);

    const res = await api(t, 'PATCH', memberUrl(member.userId), {
      token: org.owner.token,
      body: { role: 'Collector', siteIds: [a, a1, a] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ userId: member.userId, role: 'COLLECTOR', siteIds: [a, a1].sort() });

    const me = await api(t, 'GET', '/me', { token: member.token });
    expect(me.body).toMatchObject({ role: 'COLLECTOR', siteIds: [a, a1].sort() });

    const cleared = await api(t, 'PATCH', memberUrl(member.userId), {
      token: org.owner.token,
      body: { siteIds: [] },
    });
    expect(cleared.body).toMatchObject({ role: 'COLLECTOR', siteIds: [] });
    const roleOnly = await api(t, 'PATCH', memberUrl(member.userId), {
      token: org.owner.token,
      body: { role: 'MANAGER' },
    });
    expect(roleOnly.body).toMatchObject({ role: 'MANAGER', siteIds: [] });
  });

  it('404 for unknown, malformed and other tenants’ user ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', other.collector.userId]) {
      const res = await api(t, 'PATCH', memberUrl(id), {
        token: tenant.owner.token,
        body: { role: 'VIEWER' },
      });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('400 naming the field for an unknown role or a site that is not the organization’s', async () => {
    const site = await createSite(t, tenant.organizationId);
    const foreign = await createSite(t, other.organizationId);
    const cases: [unknown, string[]][] = [
      [{ role: 'boss' }, ['role']],
      [{ role: 3 }, ['role']],
      [
        { siteIds: [site, foreign, 'x', '00000000-0000-4000-8000-000000000000'] },
        ['siteIds.1', 'siteIds.2', 'siteIds.3'],
      ],
      [{ siteIds: site }, ['siteIds']],
      [{ role: 'VIEWER', status: 'active' }, ['status']],
    ];
    for (const [body, expected] of cases) {
      const res = await api(t, 'PATCH', memberUrl(tenant.viewer.userId), { token: tenant.owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(paths(res.body)).toEqual(expected);
    }
    const me = await api(t, 'GET', '/me', { token: tenant.viewer.token });
    expect(me.body).toMatchObject({ role: 'VIEWER', siteIds: [] });
  });

  it('lets only owners grant or take away OWNER, and never demotes the last owner (400)', async () => {
    const org = await createTenant(t);
    const lastOwner = await api(t, 'PATCH', memberUrl(org.owner.userId), {
      token: org.owner.token,
      body: { role: 'MANAGER' },
    });
    expect(lastOwner.status).toBe(400);
    expect(errorText(lastOwner.body)).toMatch(/at least one owner/);

    const byManager = await api(t, 'PATCH', memberUrl(org.collector.userId), {
      token: org.manager.token,
      body: { role: 'OWNER' },
    });
    expect(byManager.status).toBe(403);
    const onOwner = await api(t, 'PATCH', memberUrl(org.owner.userId), {
      token: org.manager.token,
      body: { role: 'VIEWER' },
    });
    expect(onOwner.status).toBe(403);

    const promoted = await api(t, 'PATCH', memberUrl(org.manager.userId), {
      token: org.owner.token,
      body: { role: 'owner' },
    });
    expect(promoted.body.role).toBe('OWNER');
    // With a second owner, the first may step down; then the second is the last one.
    const stepDown = await api(t, 'PATCH', memberUrl(org.owner.userId), {
      token: org.owner.token,
      body: { role: 'VIEWER' },
    });
    expect(stepDown.status).toBe(200);
    expect((await api(t, 'GET', '/me', { token: org.owner.token })).body.role).toBe('VIEWER');
    const last = await api(t, 'PATCH', memberUrl(org.manager.userId), {
      token: org.manager.token,
      body: { role: 'COLLECTOR' },
    });
    expect(last.status).toBe(400);
  });

  it('keeps one owner when two owners demote each other at the same time', async () => {
    const org = await createTenant(t);
    const second = await addMember(t, org.organizationId, 'OWNER');
    const results = await Promise.all([
      api(t, 'PATCH', memberUrl(second.userId), { token: org.owner.token, body: { role: 'VIEWER' } }),
      api(t, 'PATCH', memberUrl(org.owner.userId), { token: second.token, body: { role: 'VIEWER' } }),
    ]);
    // One wins; the other is refused: 400 (it would remove the last owner) when both were
    // owners at the check, or 403 when its caller had already been demoted by the winner.
    const statuses = results.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([400, 403]).toContain(statuses[1]);
    const list = await api(t, 'GET', membersUrl, { token: org.manager.token });
    expect(list.body.filter((m: { role: string }) => m.role === 'OWNER')).toHaveLength(1);
  });

  it('lets managers change collectors and viewers only, to those roles, on sites they manage', async () => {
    const org = await createTenant(t);
    const { a, a1, b } = await tree(org);
    await assignSites(t, org.organizationId, org.manager.userId, [a]);
    const collector = await addMember(t, org.organizationId, 'COLLECTOR');
    await assignSites(t, org.organizationId, collector.userId, [a, b]);
    const patch = (userId: string, body: unknown) =>
      api(t, 'PATCH', memberUrl(userId), { token: org.manager.token, body });

    // Sites inside the manager's scope (a and its child a1) may be added; b is kept as it was.
    const ok = await patch(collector.userId, { siteIds: [a, a1, b] });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ role: 'COLLECTOR', siteIds: [a, a1, b].sort() });
    // The role of a member who also works on b, outside the manager's scope, is not theirs to change.
    expect((await patch(collector.userId, { role: 'VIEWER' })).status).toBe(403);
    const local = await addMember(t, org.organizationId, 'COLLECTOR');
    await assignSites(t, org.organizationId, local.userId, [a1]);
    expect((await patch(local.userId, { role: 'VIEWER' })).body.role).toBe('VIEWER');
    // Taking away b, which the manager does not manage, is refused; so is adding it.
    expect((await patch(collector.userId, { siteIds: [a] })).status).toBe(403);
    // A member of no site is not theirs to place (decision 168): the owner places them first.
    const fresh = await addMember(t, org.organizationId, 'VIEWER');
    expect((await patch(fresh.userId, { siteIds: [b] })).status).toBe(403);
    expect((await patch(fresh.userId, { siteIds: [a1] })).status).toBe(403);
    await assignSites(t, org.organizationId, fresh.userId, [a1]);
    expect((await patch(fresh.userId, { siteIds: [a, a1] })).status).toBe(200);
    // No OWNER grants, and no changes to managers (promoting a member of their own sites is fine).
    expect((await patch(fresh.userId, { role: 'OWNER' })).status).toBe(403);
    expect((await patch(fresh.userId, { role: 'MANAGER' })).body.role).toBe('MANAGER');
    const peer = await addMember(t, org.organizationId, 'MANAGER');
    expect((await patch(peer.userId, { role: 'VIEWER' })).status).toBe(403);
    expect((await patch(org.manager.userId, { siteIds: [a, b] })).status).toBe(403);

    const after = await api(t, 'GET', '/me', { token: collector.token });
    expect(after.body).toMatchObject({ role: 'COLLECTOR', siteIds: [a, a1, b].sort() });
  });

  it('is refused to collectors and viewers (403)', async () => {
    for (const member of [tenant.collector, tenant.viewer]) {
      const res = await api(t, 'PATCH', memberUrl(tenant.viewer.userId), {
        token: member.token,
        body: { role: 'VIEWER' },
      });
      expect(res.status).toBe(403);
    }
  });
});

describe('DELETE /organizations/current/members/{userId}', () => {
  it('removes the member and revokes their access tokens and API keys', async () => {
    const org = await createTenant(t);
    const second = await addMember(t, org.organizationId, 'OWNER');
    const key = await api(t, 'POST', '/apikeys', { token: second.token, body: { name: 'theirs' } });
    expect((await api(t, 'GET', '/me', { token: key.body.apiKey })).status).toBe(200);

    const res = await api(t, 'DELETE', memberUrl(second.userId), { token: org.owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await api(t, 'GET', '/me', { token: second.token })).status).toBe(401);
    expect((await api(t, 'GET', '/me', { token: key.body.apiKey })).status).toBe(401);
    const list = await api(t, 'GET', membersUrl, { token: org.owner.token });
    expect(list.body.map((m: { userId: string }) => m.userId)).not.toContain(second.userId);

    // Coming back later does not revive what they held before.
    await t.database.tenant(org.organizationId, (tx) =>
      tx
        .insertInto('memberships')
        .values({ organization_id: org.organizationId, user_id: second.userId, role: 'OWNER' })
        .execute(),
    );
    expect((await api(t, 'GET', '/me', { token: second.token })).status).toBe(401);
    expect((await api(t, 'GET', '/me', { token: key.body.apiKey })).status).toBe(401);
    const rows = await t.database.tenant(org.organizationId, (tx) =>
      tx.selectFrom('api_keys').select('revoked_at').where('user_id', '=', second.userId).execute(),
    );
    expect(rows.every((r) => r.revoked_at !== null)).toBe(true);
  });

  it('never removes the last owner (400), and 404 for unknown ids', async () => {
    const org = await createTenant(t);
    const res = await api(t, 'DELETE', memberUrl(org.owner.userId), { token: org.owner.token });
    expect(res.status).toBe(400);
    expect((await api(t, 'GET', '/me', { token: org.owner.token })).status).toBe(200);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', other.viewer.userId]) {
      expect((await api(t, 'DELETE', memberUrl(id), { token: org.owner.token })).status).toBe(404);
    }
    await api(t, 'DELETE', memberUrl(org.viewer.userId), { token: org.owner.token });
    expect((await api(t, 'DELETE', memberUrl(org.viewer.userId), { token: org.owner.token })).status).toBe(
      404,
    );
  });

  it('lets managers remove collectors and viewers whose sites they all manage', async () => {
    const org = await createTenant(t);
    const { a, a1, b } = await tree(org);
    await assignSites(t, org.organizationId, org.manager.userId, [a]);
    const inside = await addMember(t, org.organizationId, 'COLLECTOR');
    await assignSites(t, org.organizationId, inside.userId, [a1]);
    const outside = await addMember(t, org.organizationId, 'VIEWER');
    await assignSites(t, org.organizationId, outside.userId, [a, b]);
    const peer = await addMember(t, org.organizationId, 'MANAGER');
    const remove = (userId: string) => api(t, 'DELETE', memberUrl(userId), { token: org.manager.token });

    expect((await remove(outside.userId)).status).toBe(403);
    expect((await remove(peer.userId)).status).toBe(403);
    expect((await remove(org.owner.userId)).status).toBe(403);
    expect((await remove(inside.userId)).status).toBe(200);
    expect((await api(t, 'GET', '/me', { token: inside.token })).status).toBe(401);
    expect((await api(t, 'GET', '/me', { token: outside.token })).status).toBe(200);
  });

  it('is refused to collectors and viewers (403)', async () => {
    const target = await addMember(t, tenant.organizationId, 'VIEWER');
    for (const member of [tenant.collector, tenant.viewer]) {
      expect((await api(t, 'DELETE', memberUrl(target.userId), { token: member.token })).status).toBe(403);
    }
    expect((await api(t, 'DELETE', memberUrl(target.userId))).status).toBe(401);
  });
});
