import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { addMember, createTenant, type Tenant } from '../../../test/helpers/factories.ts';
import { invitationHelpers, invitationTestConfig, newEmail } from '../../../test/helpers/invitations.ts';
import {
  decodeJwt,
  signInAtProvider,
  startTestProvider,
  type TestProvider,
} from '../../../test/helpers/oidc-provider.ts';
import { hashPassword } from '../../lib/secrets.ts';

// OIDC sign-in (issue 49, decision 220) against a real provider (oidc-provider) on a loopback
// port: the flow through its login page, the four attacks, invitations, joining as a viewer, and
// "SSO only" for passwords.

const PUBLIC = 'http://sdcs.test';
const CALLBACK = `${PUBLIC}/api/v1/auth/oidc/callback`;
const t = useTestApp({ ...invitationTestConfig(), publicUrl: PUBLIC, oidcAllowHttp: true });
const invitations = invitationHelpers(t);
let provider: TestProvider;
let org: Tenant;

beforeAll(async () => {
  provider = await startTestProvider({ redirectUris: [CALLBACK] });
  org = await createTenant(t, 'Acme SSO');
  await configure(org, {});
});
afterAll(() => provider?.close());

function configure(tenant: Tenant, extra: Record<string, unknown>) {
  return api(t, 'PUT', '/organizations/current/sso', {
    token: tenant.owner.token,
    body: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      displayName: 'Acme Login',
      ...extra,
    },
  });
}

/** Starts at SDCS, signs in at the provider as `login`: answers the callback address. */
async function toCallback(tenant: Tenant, login: string): Promise<URL> {
  const start = await api(t, 'GET', `/auth/oidc/${tenant.organizationId}/start`);
  expect(start.status, JSON.stringify(start.body)).toBe(303);
  const location = String(start.headers['location']);
  expect(location.startsWith(`${provider.issuer}/auth?`)).toBe(true);
  const sent = new URL(location).searchParams;
  expect(sent.get('code_challenge_method')).toBe('S256');
  expect(sent.get('state')).toBeTruthy();
  expect(sent.get('nonce')).toBeTruthy();
  const back = await signInAtProvider(location, login);
  expect(back.origin + back.pathname).toBe(CALLBACK);
  return back;
}

/** Sends the browser's return to SDCS: answers where SDCS sends it next. */
async function callback(back: URL): Promise<URL> {
  const res = await t.app.inject({ method: 'GET', url: back.pathname + back.search });
  expect(res.statusCode).toBe(303);
  expect(res.headers['cache-control']).toBe('no-store');
  return new URL(String(res.headers['location']));
}

const fragment = (to: URL) => new URLSearchParams(to.hash.slice(1));

async function signIn(tenant: Tenant, login: string) {
  const to = await callback(await toCallback(tenant, login));
  return { to, code: fragment(to).get('sso'), error: fragment(to).get('ssoError') };
}

async function exchange(code: string) {
  return api(t, 'POST', '/auth/oidc/exchange', { body: { code } });
}

describe('settings', () => {
  it('an owner sets the provider; the secret is never answered and is stored sealed', async () => {
    const got = await api(t, 'GET', '/organizations/current/sso', { token: org.owner.token });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecretSet: true,
      emailClaim: 'email',
      displayName: 'Acme Login',
      allowedDomains: [],
      joinAsViewer: false,
      ssoOnly: false,
      redirectUri: CALLBACK,
      signInUrl: `${PUBLIC}/app/sign-in?org=${org.organizationId}`,
    });
    expect(JSON.stringify(got.body)).not.toContain(provider.clientSecret);
    const row = await t.database.system((tx) =>
      tx.selectFrom('organization_sso').select('client_secret_sealed').executeTakeFirstOrThrow(),
    );
    expect(row.client_secret_sealed).not.toContain(provider.clientSecret);
    expect(row.client_secret_sealed.startsWith('v1.')).toBe(true);
  });

  it('the first settings need a secret; later ones keep the stored one', async () => {
    const other = await createTenant(t);
    const res = await api(t, 'PUT', '/organizations/current/sso', {
      token: other.owner.token,
      body: { issuer: provider.issuer, clientId: 'x', displayName: 'X' },
    });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path: 'clientSecret', message: 'required the first time' }]);
    const kept = await api(t, 'PUT', '/organizations/current/sso', {
      token: org.owner.token,
      body: { issuer: provider.issuer, clientId: provider.clientId, displayName: 'Acme Login' },
    });
    expect(kept.status).toBe(200);
    const { error } = await signIn(org, org.owner.email);
    expect(error).toBeNull();
  });

  it('the sign-in screen learns the button’s name; an organization without SSO is 404', async () => {
    const res = await api(t, 'GET', `/auth/oidc/${org.organizationId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      organizationId: org.organizationId,
      displayName: 'Acme Login',
      ssoOnly: false,
      startUrl: `${PUBLIC}/api/v1/auth/oidc/${org.organizationId}/start`,
    });
    const other = await createTenant(t);
    expect((await api(t, 'GET', `/auth/oidc/${other.organizationId}`)).status).toBe(404);
    expect((await api(t, 'GET', `/auth/oidc/${other.organizationId}/start`)).status).toBe(404);
    expect((await api(t, 'GET', '/auth/oidc/not-an-id/start')).status).toBe(404);
  });
});

describe('signing in', () => {
  it('a member signs in and the one-time code becomes an access token, once', async () => {
    const { to, code, error } = await signIn(org, org.manager.email);
    expect(error).toBeNull();
    expect(to.origin + to.pathname).toBe(`${PUBLIC}/app/sign-in`);
    expect(to.search).toBe('');
    const answer = await exchange(code!);
    expect(answer.status).toBe(200);
    expect(answer.body.organizationId).toBe(org.organizationId);
    const me = await api(t, 'GET', '/me', { token: answer.body.accessToken });
    expect(me.body.user.email).toBe(org.manager.email);
    expect(me.body.role).toBe('MANAGER');
    const again = await exchange(code!);
    expect(again.status).toBe(400);
    expect(again.body.issues[0].message).toMatch(/already used/);
  });

  it('an invited address accepts its invitation with its first sign-in', async () => {
    const email = newEmail('invited');
    const invited = await invitations.invite(org.owner.token, {
      email,
      assignedSiteIds: [],
      role: 'COLLECTOR',
    });
    expect(invited.status).toBe(200);
    expect((await invitations.memberOf(org, email)).status).toBe('pending');
    const { code, error } = await signIn(org, email);
    expect(error).toBeNull();
    const answer = await exchange(code!);
    const me = await api(t, 'GET', '/me', { token: answer.body.accessToken });
    expect(me.body.role).toBe('COLLECTOR');
    expect((await invitations.memberOf(org, email)).status).toBe('active');
    const accepted = await t.database.system((tx) =>
      tx.selectFrom('invitations').select('accepted_at').where('email', '=', email).executeTakeFirstOrThrow(),
    );
    expect(accepted.accepted_at).not.toBeNull();
  });

  it('an address not invited is refused, or joins as a VIEWER of no site when the owner allows it', async () => {
    const email = newEmail('stranger');
    const refused = await signIn(org, email);
    expect(refused.error).toBe('not-invited');
    expect(refused.code).toBeNull();
    expect(refused.to.searchParams.get('org')).toBe(org.organizationId);
    expect(await invitations.memberOf(org, email)).toBeUndefined();

    await configure(org, { joinAsViewer: true });
    try {
      const joined = await signIn(org, email);
      expect(joined.error).toBeNull();
      const answer = await exchange(joined.code!);
      const me = await api(t, 'GET', '/me', { token: answer.body.accessToken });
      expect(me.body.role).toBe('VIEWER');
      expect(me.body.siteIds).toEqual([]);
      expect(me.body.user.name).toBe(`Person ${email.split('@')[0]}`);
    } finally {
      await configure(org, { joinAsViewer: false });
    }
  });
});

describe('attacks, each refused', () => {
  it('an ID token signed by another key', async () => {
    provider.tamper = (idToken) => provider.sign(decodeJwt(idToken), 'foreign');
    try {
      const { error, code } = await signIn(org, org.manager.email);
      expect(error).toBe('verify');
      expect(code).toBeNull();
    } finally {
      provider.tamper = undefined;
    }
  });

  it('the same ID token re-signed by the provider’s own key passes (the check above is the signature)', async () => {
    provider.tamper = (idToken) => provider.sign(decodeJwt(idToken), 'own');
    try {
      expect((await signIn(org, org.manager.email)).error).toBeNull();
    } finally {
      provider.tamper = undefined;
    }
  });

  it('a replayed state', async () => {
    const back = await toCallback(org, org.manager.email);
    const first = await callback(back);
    expect(fragment(first).get('sso')).toBeTruthy();
    const replay = await callback(back);
    expect(fragment(replay).get('ssoError')).toBe('state');
    expect(fragment(replay).get('sso')).toBeNull();
    // A state never issued is refused the same way.
    const forged = new URL(back);
    forged.searchParams.set('state', 'made-up');
    expect(fragment(await callback(forged)).get('ssoError')).toBe('state');
  });

  it('an expired ID token', async () => {
    provider.tamper = (idToken) => {
      const now = Math.floor(Date.now() / 1000);
      return provider.sign({ ...decodeJwt(idToken), iat: now - 3700, exp: now - 3600 }, 'own');
    };
    try {
      const { error, code } = await signIn(org, org.manager.email);
      expect(error).toBe('expired');
      expect(code).toBeNull();
    } finally {
      provider.tamper = undefined;
    }
  });

  it('an e-mail claim of another domain when domains are restricted', async () => {
    const other = await createTenant(t, 'Restricted');
    expect((await configure(other, { allowedDomains: ['Acme.example'], joinAsViewer: true })).status).toBe(
      200,
    );
    const { error, code } = await signIn(other, 'someone@elsewhere.example');
    expect(error).toBe('domain');
    expect(code).toBeNull();
    const allowed = await signIn(other, 'someone@acme.example');
    expect(allowed.error).toBeNull();
  });
});

describe('SSO only', () => {
  const PASSWORD = 'correct horse battery';

  it('refuses passwords into the organization, not into the person’s other ones; API keys stay', async () => {
    const closed = await createTenant(t, 'Closed');
    const open = await createTenant(t, 'Open');
    expect((await configure(closed, { ssoOnly: true })).status).toBe(200);
    const both = await addMember(t, closed.organizationId, 'MANAGER');
    const passwordHash = await hashPassword(PASSWORD);
    await t.database.system(async (tx) => {
      await tx
        .updateTable('users')
        .set({ password_hash: passwordHash })
        .where('id', '=', both.userId)
        .execute();
      await tx
        .insertInto('memberships')
        .values({ organization_id: open.organizationId, user_id: both.userId, role: 'VIEWER' })
        .execute();
    });
    const into = await api(t, 'POST', '/auth/login', {
      body: { email: both.email, password: PASSWORD, organizationId: closed.organizationId },
    });
    expect(into.status).toBe(403);
    expect(into.body.issues[0].message).toBe(
      'This organization signs in with its identity provider only: use “Sign in with Acme Login”',
    );
    const plain = await api(t, 'POST', '/auth/login', { body: { email: both.email, password: PASSWORD } });
    expect(plain.status).toBe(200);
    expect(plain.body.organizationId).toBe(open.organizationId);
    expect(plain.body.organizations.map((o: { id: string }) => o.id)).toEqual([open.organizationId]);
    // A wrong password is still just a wrong password.
    const wrong = await api(t, 'POST', '/auth/login', {
      body: { email: both.email, password: 'wrong password', organizationId: closed.organizationId },
    });
    expect(wrong.status).toBe(401);
    // The owner's API key keeps working, and the provider still signs the member in.
    expect((await api(t, 'GET', '/me', { token: closed.apiKey })).status).toBe(200);
    expect((await signIn(closed, both.email)).error).toBeNull();
  });

  it('a member of only SSO-only organizations is refused with the way in', async () => {
    const closed = await createTenant(t, 'Only closed');
    expect((await configure(closed, { ssoOnly: true, displayName: 'Closed ID' })).status).toBe(200);
    const member = await addMember(t, closed.organizationId, 'COLLECTOR');
    const passwordHash = await hashPassword(PASSWORD);
    await t.database.system((tx) =>
      tx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', member.userId).execute(),
    );
    const res = await api(t, 'POST', '/auth/login', { body: { email: member.email, password: PASSWORD } });
    expect(res.status).toBe(403);
    expect(res.body.issues[0].message).toMatch(/Sign in with Closed ID/);
  });

  it('an invitation into an SSO-only organization is not accepted with a password', async () => {
    const closed = await createTenant(t, 'Closed invitations');
    expect((await configure(closed, { ssoOnly: true })).status).toBe(200);
    const email = newEmail('closed');
    await invitations.invite(closed.owner.token, { email, assignedSiteIds: [], role: 'VIEWER' });
    const res = await invitations.accept(await invitations.tokenMailedTo(email));
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/Sign in with Acme Login/);
    // Its first sign-in with the provider accepts it.
    expect((await signIn(closed, email)).error).toBeNull();
    expect((await invitations.memberOf(closed, email)).status).toBe('active');
  });
});
