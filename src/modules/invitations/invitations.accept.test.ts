import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { addMember, createSite, createTenant, type Tenant } from '../../../test/helpers/factories.ts';
import {
  invitationHelpers,
  invitationTestConfig,
  issuePaths,
  newEmail,
  PUBLIC_URL,
} from '../../../test/helpers/invitations.ts';
import type { Caller } from '../../domain/caller.ts';
import { hashPassword, sha256Hex } from '../../lib/secrets.ts';
import { siteScope } from '../access/site-scope.ts';

const t = useTestApp(invitationTestConfig());
const { invite, accept, tokenMailedTo, mailsTo, memberOf } = invitationHelpers(t);
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  tenant = await createTenant(t, 'Acme Group');
  other = await createTenant(t);
});

describe('inviting a collector to one branch of the site tree, who accepts', () => {
  it('ends with an active collector whose scope is that branch', async () => {
    const org = tenant.organizationId;
    const group = await createSite(t, org, { name: 'Group' });
    const europe = await createSite(t, org, { name: 'Europe', parentId: group });
    const paris = await createSite(t, org, { name: 'Paris', parentId: europe });
    const asia = await createSite(t, org, { name: 'Asia', parentId: group });
    const email = newEmail('collector');

    const sent = await invite(tenant.owner.token, { email, assignedSiteIds: [europe], role: 'COLLECTOR' });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ success: true, message: expect.stringContaining(email) });

    const pending = await memberOf(tenant, email);
    expect(pending).toMatchObject({ role: 'COLLECTOR', status: 'pending', siteIds: [europe], name: '' });
    const expires = Date.parse(pending.invitationExpiresAt);
    expect(expires).toBeGreaterThan(Date.now() + 7 * 86_400_000 - 120_000);
    expect(expires).toBeLessThan(Date.now() + 7 * 86_400_000 + 120_000);

    const mails = await mailsTo(email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain('Acme Group');
    const token = await tokenMailedTo(email);
    expect(mails[0]!.text).toContain(`${PUBLIC_URL}/app/accept-invitation?token=${token}`);
    expect(mails[0]!.html).toContain(`${PUBLIC_URL}/app/accept-invitation?token=${token}`);

    // Only the SHA-256 of the token is stored; the new user has no password yet.
    const stored = await t.database.tenant(org, (tx) =>
      tx.selectFrom('invitations').selectAll().where('email', '=', email).execute(),
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token_hash).toBe(sha256Hex(token));
    expect(JSON.stringify(stored)).not.toContain(token);
    const user = await t.database.system((tx) =>
      tx.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow(),
    );
    expect(user.password_hash).toBeNull();
    // A pending member cannot act yet.
    expect(
      await t.database.system((tx) =>
        tx
          .selectFrom('memberships')
          .select('status')
          .where('user_id', '=', user.id)
          .executeTakeFirstOrThrow(),
      ),
    ).toEqual({ status: 'pending' });

    const accepted = await accept(token, 'Colette Collector', 'correct horse battery');
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ success: true, message: expect.any(String), organizationId: org });
    expect(accepted.body.accessToken).toMatch(/^sdcs_at_/);

    const me = await api(t, 'GET', '/me', { token: accepted.body.accessToken });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      user: { id: user.id, email, name: 'Colette Collector' },
      organization: { id: org },
      role: 'COLLECTOR',
      siteIds: [europe],
    });
    const caller: Caller = {
      userId: user.id,
      organizationId: org,
      role: 'COLLECTOR',
      isAdmin: false,
      email,
      name: 'Colette Collector',
      image: null,
      credential: { kind: 'token', id: 'x' },
    };
    const scope = await t.database.tenant(org, (tx) => siteScope(tx, caller));
    expect([...scope.siteIds].sort()).toEqual([europe, paris].sort());
    expect(scope.siteIds.has(asia)).toBe(false);
    expect(scope.siteIds.has(group)).toBe(false);

    expect(await memberOf(tenant, email)).toMatchObject({
      status: 'active',
      name: 'Colette Collector',
      invitationExpiresAt: null,
    });
    const login = await api(t, 'POST', '/auth/login', { body: { email, password: 'correct horse battery' } });
    expect(login.status).toBe(200);

    const again = await accept(token);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      code: 'BAD_REQUEST',
      success: false,
      message: expect.stringMatching(/already/),
    });
    const reinvite = await invite(tenant.owner.token, {
      email: email.toUpperCase(),
      assignedSiteIds: [],
      role: 'viewer',
    });
    expect(reinvite.status).toBe(400);
    expect(reinvite.body).toEqual({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/already a member/),
      success: false,
    });
  });
});

describe('POST /invitations/accept', () => {
  it('refuses unknown tokens (400, success false) and needs no credential', async () => {
    const res = await accept('sdcs_inv_doesnotexist');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'BAD_REQUEST',
      success: false,
      message: expect.stringMatching(/not valid/),
    });
  });

  it('names invalid fields (400)', async () => {
    const res = await api(t, 'POST', '/invitations/accept', { body: { token: '', name: 'x', extra: 1 } });
    expect(res.status).toBe(400);
    expect(issuePaths(res.body).sort()).toEqual(['extra', 'password', 'token']);
  });

  it('needs a password of at least 8 characters and a name for a new account', async () => {
    const email = newEmail();
    await invite(tenant.owner.token, { email, assignedSiteIds: [], role: 'VIEWER' });
    const token = await tokenMailedTo(email);
    const short = await accept(token, 'Someone', 'short');
    expect(short.status).toBe(400);
    expect(issuePaths(short.body)).toEqual(['password']);
    const blank = await accept(token, '   ', 'long enough password');
    expect(blank.status).toBe(400);
    expect(issuePaths(blank.body)).toEqual(['name']);
    expect((await memberOf(tenant, email)).status).toBe('pending');
    expect((await accept(token, 'Someone', 'long enough password')).status).toBe(200);
  });

  it('asks an existing account for its own password, and keeps its name', async () => {
    const existing = await addMember(t, other.organizationId, 'VIEWER');
    await t.database.system(async (tx) =>
      tx
        .updateTable('users')
        .set({ password_hash: await hashPassword('the existing password'), name: 'Known Name' })
        .where('id', '=', existing.userId)
        .execute(),
    );
    await invite(tenant.owner.token, {
      email: existing.email.toUpperCase(),
      assignedSiteIds: [],
      role: 'Manager',
    });
    const token = await tokenMailedTo(existing.email.toUpperCase());

    const wrong = await accept(token, 'Other Name', 'a different password');
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ success: false });
    expect(issuePaths(wrong.body)).toEqual(['password']);

    const ok = await accept(token, 'Other Name', 'the existing password');
    expect(ok.status).toBe(200);
    const me = await api(t, 'GET', '/me', { token: ok.body.accessToken });
    expect(me.body).toMatchObject({
      user: { id: existing.userId, name: 'Known Name' },
      organization: { id: tenant.organizationId },
      role: 'MANAGER',
    });
    // Still a member of the first organization too.
    expect((await api(t, 'GET', '/me', { token: existing.token })).body.organization.id).toBe(
      other.organizationId,
    );
  });

  it('stops working when the pending member is removed (the invitation is cancelled)', async () => {
    const email = newEmail('cancelled');
    await invite(tenant.owner.token, { email, assignedSiteIds: [], role: 'VIEWER' });
    const token = await tokenMailedTo(email);
    const pending = await memberOf(tenant, email);
    const removed = await api(t, 'DELETE', `/organizations/current/members/${pending.userId}`, {
      token: tenant.owner.token,
    });
    expect(removed.status).toBe(200);
    expect((await accept(token)).status).toBe(400);
    expect((await invite(tenant.owner.token, { email, assignedSiteIds: [], role: 'VIEWER' })).status).toBe(
      200,
    );
  });
});

describe('the older page /accept-invitation', () => {
  it('redirects to the app’s invitation page, keeping the token and nothing else', async () => {
    const token = `sdcs_inv_${'aB3-_'.repeat(8)}`;
    const res = await t.app.inject({
      method: 'GET',
      url: `/accept-invitation?token=${token}&next=https://evil.example`,
    });
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe(`/app/accept-invitation?token=${token}`);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    // No page of its own any more: no script, no form, nothing to frame.
    expect(res.body).not.toContain('<script');
    expect(res.body).not.toContain('<form');
    expect(String(res.headers['content-security-policy'])).not.toContain('unsafe-inline');
  });

  it('encodes what the token holds, and leads a link without a token to the app’s page', async () => {
    const odd = await t.app.inject({ method: 'GET', url: '/accept-invitation?token=a%26b%3Dc%20d' });
    expect(odd.statusCode).toBe(301);
    expect(odd.headers.location).toBe('/app/accept-invitation?token=a%26b%3Dc%20d');
    const none = await t.app.inject({ method: 'GET', url: '/accept-invitation' });
    expect(none.statusCode).toBe(301);
    expect(none.headers.location).toBe('/app/accept-invitation');
  });

  it('is followed to the app’s page, which is served with its strict CSP', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/accept-invitation?token=abc' });
    const page = await t.app.inject({ method: 'GET', url: String(first.headers.location) });
    expect(page.statusCode).toBe(200);
    // The service's scripts, and by hash the custom form frame's one script (decision 224).
    expect(String(page.headers['content-security-policy'])).toMatch(/script-src 'self' 'sha256-[\w+/]+=*';/);
    expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  });
});

describe('POST /invitations/describe (what the invitation page shows)', () => {
  const describeInvitation = (token: string) => api(t, 'POST', '/invitations/describe', { body: { token } });

  it('names the organization, the invited address, the role and who invited, while open', async () => {
    const email = newEmail('page');
    await invite(tenant.owner.token, { email, assignedSiteIds: [], role: 'VIEWER' });
    const token = await tokenMailedTo(email);
    const res = await describeInvitation(token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      state: 'open',
      organizationName: 'Acme Group',
      email,
      role: 'VIEWER',
      inviterName: expect.any(String),
      hasAccount: false,
    });
  });

  it('after acceptance names only the organization', async () => {
    const email = newEmail('used');
    await invite(tenant.owner.token, { email, assignedSiteIds: [], role: 'VIEWER' });
    const token = await tokenMailedTo(email);
    expect((await accept(token)).status).toBe(200);
    const res = await describeInvitation(token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      state: 'accepted',
      organizationName: 'Acme Group',
      email: null,
      role: null,
      inviterName: null,
      hasAccount: null,
    });
    expect(JSON.stringify(res.body)).not.toContain(email);
  });

  it('answers 404 for an unknown token and 400 without one, saying nothing about any invitation', async () => {
    const unknown = await describeInvitation('sdcs_inv_unknown');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    expect(JSON.stringify(unknown.body)).toContain('This invitation link is not valid');
    expect(Object.keys(unknown.body).sort()).toEqual(['code', 'issues', 'message']);
    const missing = await api(t, 'POST', '/invitations/describe', { body: {} });
    expect(missing.status).toBe(400);
    expect(issuePaths(missing.body)).toContain('token');
  });
});
