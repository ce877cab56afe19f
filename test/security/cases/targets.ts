import { api, type TestContext } from '../../helpers/app.ts';
import type { Tenant } from '../../helpers/factories.ts';
import type { SecurityCase } from '../matrix.ts';
import { createIndicator } from './indicators.ts';

async function createTarget(t: TestContext, tenant: Tenant): Promise<string> {
  const res = await api(t, 'POST', '/targets', {
    token: tenant.owner.token,
    body: {
      indicatorId: await createIndicator(t, tenant),
      title: 'matrix',
      targetEntries: [{ year: 2030, targetValue: 1 }],
    },
  });
  if (res.status !== 200) throw new Error(`target not created: ${JSON.stringify(res.body)}`);
  return res.body.id;
}

export const cases: SecurityCase[] = [
  {
    method: 'POST',
    route: '/targets',
    prepare: async (t, tenant) => ({
      url: '/targets',
      body: { indicatorId: await createIndicator(t, tenant), title: 'matrix' },
    }),
  },
  { method: 'GET', route: '/targets', prepare: async () => ({ url: '/targets' }) },
  {
    method: 'GET',
    route: '/targets/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/targets/${await createTarget(t, tenant)}` }),
  },
  {
    method: 'PUT',
    route: '/targets/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/targets/${await createTarget(t, tenant)}`,
      body: { title: 'renamed' },
    }),
  },
  {
    method: 'DELETE',
    route: '/targets/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/targets/${await createTarget(t, tenant)}` }),
  },
];
