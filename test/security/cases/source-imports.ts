import { api, type TestContext } from '../../helpers/app.ts';
import { createForm, type Tenant } from '../../helpers/factories.ts';
import { newKey } from '../../helpers/import-world.ts';
import type { SecurityCase } from '../matrix.ts';

async function createAdapter(t: TestContext, tenant: Tenant) {
  const form = await createForm(t, tenant);
  const res = await api(t, 'POST', '/source-adapter-definitions', {
    token: tenant.owner.token,
    body: { name: 'matrix', mapping: adapterMapping(form.id) },
  });
  return { id: res.body.id as string, adapterVersion: res.body.adapterVersion as string, formId: form.id };
}

const adapterMapping = (formId: string) => ({
  sheets: [
    {
      sheet: '*',
      draft: 'form_value',
      form: { id: formId },
      element: { key: 'amount' },
      value: { column: 'v' },
    },
  ],
});

const importBody = (adapter: { id: string; adapterVersion: string }) => ({
  sourceAdapterDefinitionId: adapter.id,
  adapterVersion: adapter.adapterVersion,
  sheets: [{ name: 'S', rows: [{ v: 1 }] }],
});

export const cases: SecurityCase[] = [
  {
    method: 'GET',
    route: '/source-adapter-definitions',
    prepare: async () => ({ url: '/source-adapter-definitions' }),
  },
  {
    method: 'POST',
    route: '/source-adapter-definitions',
    prepare: async (t, tenant) => ({
      url: '/source-adapter-definitions',
      body: { name: 'm', mapping: adapterMapping((await createForm(t, tenant)).id) },
    }),
  },
  {
    method: 'GET',
    route: '/source-adapter-definitions/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/source-adapter-definitions/${(await createAdapter(t, tenant)).id}`,
    }),
  },
  {
    method: 'PUT',
    route: '/source-adapter-definitions/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => {
      const adapter = await createAdapter(t, tenant);
      return {
        url: `/source-adapter-definitions/${adapter.id}`,
        body: { name: 'renamed', mapping: adapterMapping(adapter.formId) },
      };
    },
  },
  {
    method: 'POST',
    route: '/source-imports',
    prepare: async (t, tenant) => ({
      url: '/source-imports',
      body: importBody(await createAdapter(t, tenant)),
      headers: { 'idempotency-key': newKey() },
    }),
  },
  { method: 'GET', route: '/source-imports', prepare: async () => ({ url: '/source-imports' }) },
  {
    method: 'GET',
    route: '/source-imports/:runId',
    tenantRecord: true,
    prepare: async (t, tenant) => {
      const res = await api(t, 'POST', '/source-imports', {
        token: tenant.owner.token,
        headers: { 'idempotency-key': newKey() },
        body: importBody(await createAdapter(t, tenant)),
      });
      return { url: `/source-imports/${res.body.run.id}` };
    },
  },
];
