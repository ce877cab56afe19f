import { api } from '../../helpers/app.ts';
import type { SecurityCase } from '../matrix.ts';

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
