import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { errorText } from '../../../test/helpers/errors.ts';
import { assignSites, createSite, createTenant, type Tenant } from '../../../test/helpers/factories.ts';
import {
  INVITE_URL,
  invitationHelpers,
  invitationTestConfig,
  issuePaths,
  newEmail,
} from '../../../test/helpers/invitations.ts';
import { buildApp } from '../../app.ts';
import { MailDeliveryError } from '../../mail/mailer.ts';

const t = useTestApp(invitationTestConfig());
const { invite, accept, tokenMailedTo, memberOf } = invitationHelpers(t);
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  tenant = await createTenant(t, 'Acme Group');
  other = await createTenant(t);
});

describe('POST /organizations/current/invitations', () => {
  it('accepts the role in any letter case and stores it upper-case', async () => {
    for (const [given, stored] of [
      ['Collector', 'COLLECTOR'],
      ['viewer', 'VIEWER'],
      ['MANAGER', 'MANAGER'],
      ['Owner', 'OWNER'],
    ]) {
      const email = newEmail();
      const res = await invite(tenant.owner.token, { email, assignedSiteIds: [], role: given! });
      expect(res.status).toBe(200);
      expect((await memberOf(tenant, email)).role).toBe(stored);
    }
  });

  it('refuses a second pending invitation for the same e-mail, in any letter case (400, success false)', async () => {
    const email = newEmail('twice');
    expect((await invite(tenant.owner.token, { email, assignedSiteIds: [], role: 'VIEWER' })).status).toBe(
      200,
    );
    const again = await invite(tenant.manager.token, {
      email: email.toUpperCase(),
      assignedSiteIds: [],
      role: 'VIEWER',
    });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/pending invitation/),
      success: false,
    });
    // The same person may still be invited to another organization.
    expect((await invite(other.owner.token, { email, assignedSiteIds: [], role: 'VIEWER' })).status).toBe(
      200,
    );
  });

  it('lets exactly one of two simultaneous invitations of the same person through', async () => {
    const email = newEmail('race');
    const results = await Promise.all(
      ['VIEWER', 'COLLECTOR'].map((role) => invite(tenant.owner.token, { email, assignedSiteIds: [], role })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(results.find((r) => r.status === 400)!.body).toMatchObject({
      code: 'BAD_REQUEST',
      success: false,
    });
    const rows = await t.database.system((tx) =>
      tx.selectFrom('invitations').select('id').where('email', '=', email).execute(),
    );
    expect(rows).toHaveLength(1);
  });

  it('refuses an existing member (400, success false)', async () => {
    const res = await invite(tenant.owner.token, {
      email: tenant.collector.email,
      assignedSiteIds: [],
      role: 'VIEWER',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST', success: false });
    expect((await memberOf(tenant, tenant.collector.email)).role).toBe('COLLECTOR');
  });

  it('replaces an expired invitation: the old link stops working, the new one carries the new role and sites', async () => {
    const site = await createSite(t, tenant.organizationId);
    const email = newEmail('expired');
    await invite(tenant.owner.token, { email, assignedSiteIds: [], role: 'VIEWER' });
    const oldToken = await tokenMailedTo(email);
    await t.database.system((tx) =>
      tx
        .updateTable('invitations')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('email', '=', email)
        .execute(),
    );
    const expired = await accept(oldToken);
    expect(expired.status).toBe(400);
    expect(expired.body).toMatchObject({ success: false, message: expect.stringMatching(/expired/) });

    const renewed = await invite(tenant.owner.token, { email, assignedSiteIds: [site], role: 'Collector' });
    expect(renewed.status).toBe(200);
    const newToken = await tokenMailedTo(email);
    expect(newToken).not.toBe(oldToken);
    expect((await accept(oldToken)).status).toBe(400);
    const ok = await accept(newToken);
    expect(ok.status).toBe(200);
    const me = await api(t, 'GET', '/me', { token: ok.body.accessToken });
    expect(me.body).toMatchObject({ role: 'COLLECTOR', siteIds: [site] });
  });

  it('400 naming each assigned site that is not the organization’s', async () => {
    const mine = await createSite(t, tenant.organizationId);
    const theirs = await createSite(t, other.organizationId);
    const email = newEmail();
    const res = await invite(tenant.owner.token, {
      email,
      assignedSiteIds: [mine, theirs, 'not-a-uuid', '00000000-0000-4000-8000-000000000000'],
      role: 'VIEWER',
    });
    expect(res.status).toBe(400);
    expect(issuePaths(res.body)).toEqual(['assignedSiteIds.1', 'assignedSiteIds.2', 'assignedSiteIds.3']);
    expect(await memberOf(tenant, email)).toBeUndefined();
  });

  it('400 for an unknown role, an invalid e-mail, and missing or extra fields', async () => {
    const email = newEmail();
    const cases: [unknown, string][] = [
      [{ email, assignedSiteIds: [], role: 'Boss' }, 'role'],
      [{ email: 'not-an-email', assignedSiteIds: [], role: 'VIEWER' }, 'email'],
      [{ email, role: 'VIEWER' }, 'assignedSiteIds'],
      [{ email, assignedSiteIds: [] }, 'role'],
      [{ email, assignedSiteIds: [], role: 'VIEWER', message: 'hi' }, 'message'],
      [{ email, assignedSiteIds: [1], role: 'VIEWER' }, 'assignedSiteIds.0'],
    ];
    for (const [body, path] of cases) {
      const res = await api(t, 'POST', INVITE_URL, { token: tenant.owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(issuePaths(res.body)).toContain(path);
    }
    expect(await memberOf(tenant, email)).toBeUndefined();
  });

  it('lets managers invite managers, collectors and viewers to sites they manage, never owners (403)', async () => {
    const org = await createTenant(t);
    const mine = await createSite(t, org.organizationId);
    const child = await createSite(t, org.organizationId, { parentId: mine });
    const elsewhere = await createSite(t, org.organizationId);
    await assignSites(t, org.organizationId, org.manager.userId, [mine]);
    const by = (body: { email: string; assignedSiteIds: string[]; role: string }) =>
      invite(org.manager.token, body);

    expect((await by({ email: newEmail(), assignedSiteIds: [child], role: 'Collector' })).status).toBe(200);
    expect((await by({ email: newEmail(), assignedSiteIds: [mine], role: 'viewer' })).status).toBe(200);
    const outside = newEmail();
    expect((await by({ email: outside, assignedSiteIds: [mine, elsewhere], role: 'VIEWER' })).status).toBe(
      403,
    );
    expect((await by({ email: newEmail(), assignedSiteIds: [mine], role: 'Manager' })).status).toBe(200);
    expect((await by({ email: newEmail(), assignedSiteIds: [elsewhere], role: 'Manager' })).status).toBe(403);
    const owner = await by({ email: newEmail(), assignedSiteIds: [], role: 'OWNER' });
    expect(owner.status).toBe(403);
    expect(errorText(owner.body)).toMatch(/owners/i);
    expect(await memberOf(org, outside)).toBeUndefined();
    // A pending invitation of a higher role is not the manager's to replace, even once expired.
    const managerInvite = newEmail();
    await invite(org.owner.token, { email: managerInvite, assignedSiteIds: [], role: 'MANAGER' });
    await t.database.system((tx) =>
      tx
        .updateTable('invitations')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('email', '=', managerInvite)
        .execute(),
    );
    expect((await by({ email: managerInvite, assignedSiteIds: [mine], role: 'VIEWER' })).status).toBe(403);
    expect((await memberOf(org, managerInvite)).role).toBe('MANAGER');
  });

  it('is refused to collectors and viewers (403) and without a credential (401)', async () => {
    const body = { email: newEmail(), assignedSiteIds: [], role: 'VIEWER' };
    for (const member of [tenant.collector, tenant.viewer]) {
      const res = await invite(member.token, body);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    expect((await api(t, 'POST', INVITE_URL, { body })).status).toBe(401);
  });

  it('writes nothing when the e-mail cannot be sent', async () => {
    const failing = await buildApp({
      database: t.database,
      config: t.config,
      mailer: {
        kind: 'failing',
        send: async () => {
          throw new MailDeliveryError('relay down');
        },
      },
    });
    try {
      const email = newEmail('unsent');
      const site = await createSite(t, tenant.organizationId);
      const res = await failing.inject({
        method: 'POST',
        url: `/api/v1${INVITE_URL}`,
        headers: { authorization: `Bearer ${tenant.owner.token}` },
        payload: { email, assignedSiteIds: [site], role: 'COLLECTOR' },
      });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({
        code: 'INTERNAL_SERVER_ERROR',
        message: 'Internal server error',
        issues: [{ message: expect.stringMatching(/could not be sent/) }],
      });
      const left = await t.database.system(async (tx) => ({
        users: await tx.selectFrom('users').select('id').where('email', '=', email).execute(),
        invitations: await tx.selectFrom('invitations').select('id').where('email', '=', email).execute(),
        assignments: await tx
          .selectFrom('membership_sites')
          .select('user_id')
          .where('site_id', '=', site)
          .execute(),
      }));
      expect(left).toEqual({ users: [], invitations: [], assignments: [] });
      // With a working mailer the same invitation goes through.
      expect(
        (await invite(tenant.owner.token, { email, assignedSiteIds: [site], role: 'COLLECTOR' })).status,
      ).toBe(200);
    } finally {
      await failing.close();
    }
  });
});
