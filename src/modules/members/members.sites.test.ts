import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { errorText } from '../../../test/helpers/errors.ts';
import {
  addMember,
  assignSites,
  createSite,
  createTenant,
  type Member,
  type Tenant,
} from '../../../test/helpers/factories.ts';

/**
 * A manager limited to some sites manages only members who have sites, all of them within the
 * manager's (decision 168): "every site of the member is mine" must not pass for a member of no
 * site. Owners and managers of every site manage members of no site.
 */
const t = useTestApp();
let org: Tenant;
let plant1: string;
let plant2: string;
let wide: Member;

const memberUrl = (userId: string) => `/organizations/current/members/${userId}`;
const roleOf = async (userId: string) => {
  const list = await api(t, 'GET', '/organizations/current/members', { token: org.owner.token });
  return list.body.find((m: { userId: string }) => m.userId === userId)?.role as string | undefined;
};

beforeAll(async () => {
  org = await createTenant(t);
  plant1 = await createSite(t, org.organizationId, { name: 'Plant 1' });
  plant2 = await createSite(t, org.organizationId, { name: 'Plant 2' });
  await assignSites(t, org.organizationId, org.manager.userId, [plant1]);
  wide = await addMember(t, org.organizationId, 'MANAGER');
  await assignSites(t, org.organizationId, wide.userId, [plant1, plant2]);
});

describe('a manager limited to Plant 1 and members of no site (decision 168)', () => {
  it('cannot promote a member of no site to MANAGER, nor place them on its own site; the role stays', async () => {
    const nobody = await addMember(t, org.organizationId, 'VIEWER');
    const promote = await api(t, 'PATCH', memberUrl(nobody.userId), {
      token: org.manager.token,
      body: { role: 'MANAGER' },
    });
    expect(promote.status).toBe(403);
    expect(errorText(promote.body)).toMatch(/members without a site are managed by owners/);
    const place = await api(t, 'PATCH', memberUrl(nobody.userId), {
      token: org.manager.token,
      body: { siteIds: [plant1] },
    });
    expect(place.status).toBe(403);
    expect(await roleOf(nobody.userId)).toBe('VIEWER');
    // A manager of every site may.
    const ok = await api(t, 'PATCH', memberUrl(nobody.userId), {
      token: wide.token,
      body: { role: 'COLLECTOR' },
    });
    expect(ok.status).toBe(200);
    expect(await roleOf(nobody.userId)).toBe('COLLECTOR');
  });

  it('cannot remove a member of no site; the member keeps their access', async () => {
    const nobody = await addMember(t, org.organizationId, 'COLLECTOR');
    const res = await api(t, 'DELETE', memberUrl(nobody.userId), { token: org.manager.token });
    expect(res.status).toBe(403);
    expect((await api(t, 'GET', '/me', { token: nobody.token })).status).toBe(200);
    expect((await api(t, 'DELETE', memberUrl(nobody.userId), { token: wide.token })).status).toBe(200);
  });

  it('still manages members of Plant 1', async () => {
    const local = await addMember(t, org.organizationId, 'VIEWER');
    await assignSites(t, org.organizationId, local.userId, [plant1]);
    const res = await api(t, 'PATCH', memberUrl(local.userId), {
      token: org.manager.token,
      body: { role: 'COLLECTOR' },
    });
    expect(res.status).toBe(200);
    expect((await api(t, 'DELETE', memberUrl(local.userId), { token: org.manager.token })).status).toBe(200);
  });

  it('cannot invite someone to no site; a manager of every site can', async () => {
    const invite = (token: string, email: string, assignedSiteIds: string[]) =>
      api(t, 'POST', '/organizations/current/invitations', {
        token,
        body: { email, role: 'MANAGER', assignedSiteIds },
      });
    const email = `nosite-${Date.now()}@example.com`;
    const refused = await invite(org.manager.token, email, []);
    expect(refused.status).toBe(403);
    expect(errorText(refused.body)).toMatch(/name at least one of your sites/);
    expect(await roleOf((await lookUp(email)) ?? 'none')).toBeUndefined();
    expect((await invite(wide.token, email, [])).status).toBe(200);
  });
});

/** The user id of an e-mail address, if the service knows it. */
async function lookUp(email: string): Promise<string | undefined> {
  const row = await t.database.system((tx) =>
    tx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst(),
  );
  return row?.id;
}
