import { randomUUID } from 'node:crypto';
import { api, type TestContext } from '../../helpers/app.ts';
import type { Tenant } from '../../helpers/factories.ts';
import type { SecurityCase } from '../matrix.ts';

/** OIDC settings for the tenant (owners), so that reading or removing them succeeds. */
const SSO = {
  issuer: 'https://login.example.com',
  clientId: 'sdcs',
  clientSecret: 'a-client-secret',
  displayName: 'Example ID',
};
async function withSso(t: TestContext, tenant: Tenant) {
  const res = await api(t, 'PUT', '/organizations/current/sso', { token: tenant.owner.token, body: SSO });
  if (res.status !== 200) throw new Error(`SSO settings not set: ${JSON.stringify(res.body)}`);
}

export const cases: SecurityCase[] = [
  { method: 'GET', route: '/health', prepare: async () => ({ url: '/health' }) },
  { method: 'GET', route: '/health/live', prepare: async () => ({ url: '/health/live' }) },
  { method: 'GET', route: '/health/ready', prepare: async () => ({ url: '/health/ready' }) },
  {
    method: 'POST',
    route: '/auth/signup',
    prepare: async () => ({ url: '/auth/signup', body: {} }),
  },
  {
    method: 'POST',
    route: '/auth/login',
    prepare: async () => ({ url: '/auth/login', body: {} }),
  },
  {
    method: 'POST',
    route: '/auth/logout',
    consumesToken: true,
    prepare: async () => ({ url: '/auth/logout' }),
  },
  { method: 'GET', route: '/me', prepare: async () => ({ url: '/me' }) },
  {
    method: 'GET',
    route: '/organizations/current/sso',
    prepare: async (t, tenant) => {
      await withSso(t, tenant);
      return { url: '/organizations/current/sso' };
    },
  },
  {
    method: 'PUT',
    route: '/organizations/current/sso',
    prepare: async () => ({ url: '/organizations/current/sso', body: SSO }),
  },
  {
    method: 'DELETE',
    route: '/organizations/current/sso',
    prepare: async (t, tenant) => {
      await withSso(t, tenant);
      return { url: '/organizations/current/sso' };
    },
  },
  // The browser's flow is public; an organization of no provider answers 404, a callback
  // without a state sends the browser back with the reason (the provider is never contacted).
  {
    method: 'GET',
    route: '/auth/oidc/:organizationId',
    prepare: async (t, tenant) => {
      await withSso(t, tenant);
      return { url: `/auth/oidc/${tenant.organizationId}` };
    },
  },
  {
    method: 'GET',
    route: '/auth/oidc/:organizationId/start',
    prepare: async () => ({ url: `/auth/oidc/${randomUUID()}/start` }),
  },
  { method: 'GET', route: '/auth/oidc/callback', prepare: async () => ({ url: '/auth/oidc/callback' }) },
  {
    method: 'POST',
    route: '/auth/oidc/exchange',
    prepare: async () => ({ url: '/auth/oidc/exchange', body: { code: 'sdcs_sso_unknown' } }),
  },
  { method: 'PATCH', route: '/me', prepare: async () => ({ url: '/me', body: { locale: 'de' } }) },
  {
    method: 'POST',
    route: '/apikeys',
    prepare: async () => ({ url: '/apikeys', body: { name: 'matrix' } }),
  },
  { method: 'GET', route: '/apikeys', prepare: async () => ({ url: '/apikeys' }) },
  {
    method: 'DELETE',
    route: '/apikeys/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => {
      const created = await api(t, 'POST', '/apikeys', {
        token: tenant.owner.token,
        body: { name: 'to revoke' },
      });
      return { url: `/apikeys/${created.body.id}` };
    },
  },
];
