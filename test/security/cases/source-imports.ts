import { expect } from 'vitest';
import { api, type TestContext } from '../../helpers/app.ts';
import { createForm, type Tenant } from '../../helpers/factories.ts';
import { newKey } from '../../helpers/import-world.ts';
import type { SecurityCase, SiteCase } from '../matrix.ts';
import { asManagerOfEverySite } from './activity-definitions.ts';

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
    prepare: asManagerOfEverySite(async (t, tenant) => ({
      url: '/source-adapter-definitions',
      body: { name: 'm', mapping: adapterMapping((await createForm(t, tenant)).id) },
    })),
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
    prepare: asManagerOfEverySite(async (t, tenant) => {
      const adapter = await createAdapter(t, tenant);
      return {
        url: `/source-adapter-definitions/${adapter.id}`,
        body: { name: 'renamed', mapping: adapterMapping(adapter.formId) },
      };
    }),
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

/** Organization-wide definitions (decision 166): a manager limited to Plant 1 is refused. */
export const siteCases: SiteCase[] = [
  {
    method: 'PUT',
    route: '/source-adapter-definitions/:id',
    place: 'a definition every site imports with',
    expect: { MANAGER: 403, OWNER: 200 },
    prepare: async (t, plants, caller) => {
      const adapter = await createAdapter(t, plants.tenant);
      return {
        url: `/source-adapter-definitions/${adapter.id}`,
        body: { name: 'rewritten', mapping: adapterMapping(adapter.formId) },
        after: async () => {
          const res = await api(t, 'GET', `/source-adapter-definitions/${adapter.id}`, {
            token: plants.tenant.owner.token,
          });
          expect(res.body.name).toBe(caller.role === 'OWNER' ? 'rewritten' : 'matrix');
        },
      };
    },
  },
  {
    method: 'POST',
    route: '/source-adapter-definitions',
    place: 'a new definition (for every site)',
    expect: { MANAGER: 403, OWNER: 200 },
    prepare: async (t, plants) => ({
      url: '/source-adapter-definitions',
      body: { name: 'new', mapping: adapterMapping((await createForm(t, plants.tenant)).id) },
    }),
  },
];
