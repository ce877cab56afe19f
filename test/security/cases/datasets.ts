import { api, type TestContext } from '../../helpers/app.ts';
import { createDataset, type Tenant } from '../../helpers/factories.ts';
import type { SecurityCase } from '../matrix.ts';

/** An item created through the API, so that it also has a history. */
async function createItem(t: TestContext, tenant: Tenant): Promise<string> {
  const datasetId = await createDataset(t, tenant.organizationId);
  const res = await api(t, 'POST', '/dataset-items', {
    token: tenant.owner.token,
    body: { name: 'matrix', datasetId, data: { key: 'k', value: 1 }, year: 2024 },
  });
  return res.body.id;
}

export const cases: SecurityCase[] = [
  {
    method: 'POST',
    route: '/datasets',
    prepare: async () => ({ url: '/datasets', body: { name: 'matrix' } }),
  },
  { method: 'GET', route: '/datasets', prepare: async () => ({ url: '/datasets' }) },
  {
    method: 'GET',
    route: '/datasets/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/datasets/${await createDataset(t, tenant.organizationId)}` }),
  },
  {
    method: 'PUT',
    route: '/datasets/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/datasets/${await createDataset(t, tenant.organizationId)}`,
      body: { name: 'renamed' },
    }),
  },
  {
    method: 'DELETE',
    route: '/datasets/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/datasets/${await createDataset(t, tenant.organizationId)}` }),
  },
  {
    method: 'GET',
    route: '/datasets/:datasetId/export',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/datasets/${await createDataset(t, tenant.organizationId)}/export`,
    }),
  },
  {
    method: 'POST',
    route: '/datasets/:id/import',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/datasets/${await createDataset(t, tenant.organizationId)}/import`,
      body: { csvContent: 'label,key,value,year\nA,a,1,2024\n' },
    }),
  },
  {
    method: 'POST',
    route: '/dataset-items',
    prepare: async (t, tenant) => ({
      url: '/dataset-items',
      body: {
        name: 'matrix',
        datasetId: await createDataset(t, tenant.organizationId),
        data: { key: 'k', value: 1 },
        year: 2024,
      },
    }),
  },
  {
    method: 'GET',
    route: '/dataset-items',
    prepare: async () => ({ url: '/dataset-items' }),
  },
  {
    method: 'GET',
    route: '/dataset-items/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/dataset-items/${await createItem(t, tenant)}` }),
  },
  {
    method: 'PUT',
    route: '/dataset-items/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/dataset-items/${await createItem(t, tenant)}`,
      body: { name: 'new' },
    }),
  },
  {
    method: 'DELETE',
    route: '/dataset-items/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/dataset-items/${await createItem(t, tenant)}` }),
  },
  {
    method: 'GET',
    route: '/dataset-items/:id/history',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/dataset-items/${await createItem(t, tenant)}/history` }),
  },
];
