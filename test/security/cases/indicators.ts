import { api, type TestContext } from '../../helpers/app.ts';
import type { Tenant } from '../../helpers/factories.ts';
import type { SecurityCase } from '../matrix.ts';

const constant = [{ type: 'number', value: '1' }];

/** An indicator stored through the API (as the owner): `1`. */
export async function createIndicator(t: TestContext, tenant: Tenant): Promise<string> {
  const res = await api(t, 'POST', '/indicators', {
    token: tenant.owner.token,
    body: { name: 'matrix', expressionParts: constant },
  });
  if (res.status !== 200) throw new Error(`indicator not created: ${JSON.stringify(res.body)}`);
  return res.body.id;
}

export const cases: SecurityCase[] = [
  { method: 'GET', route: '/indicators', prepare: async () => ({ url: '/indicators' }) },
  {
    method: 'POST',
    route: '/indicators',
    prepare: async () => ({ url: '/indicators', body: { name: 'matrix', expressionParts: constant } }),
  },
  {
    method: 'POST',
    route: '/indicators/current-values',
    prepare: async (t, tenant) => ({
      url: '/indicators/current-values',
      body: { indicatorIds: [await createIndicator(t, tenant)], year: 2025 },
    }),
  },
  {
    method: 'GET',
    route: '/indicators/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/indicators/${await createIndicator(t, tenant)}` }),
  },
  {
    method: 'PUT',
    route: '/indicators/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/indicators/${await createIndicator(t, tenant)}`,
      body: { name: 'renamed' },
    }),
  },
  {
    method: 'DELETE',
    route: '/indicators/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/indicators/${await createIndicator(t, tenant)}` }),
  },
];
