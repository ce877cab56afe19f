import { expect } from 'vitest';
import { api, type TestContext } from '../../helpers/app.ts';
import type { Tenant } from '../../helpers/factories.ts';
import type { SecurityCase, SiteCase } from '../matrix.ts';
import type { Plants } from '../plants.ts';
import { asManagerOfEverySite } from './activity-definitions.ts';

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
    prepare: asManagerOfEverySite(async () => ({
      url: '/indicators',
      body: { name: 'matrix', expressionParts: constant },
    })),
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
    prepare: asManagerOfEverySite(async (t, tenant) => ({
      url: `/indicators/${await createIndicator(t, tenant)}`,
      body: { name: 'renamed' },
    })),
  },
  {
    method: 'DELETE',
    route: '/indicators/:id',
    tenantRecord: true,
    prepare: asManagerOfEverySite(async (t, tenant) => ({
      url: `/indicators/${await createIndicator(t, tenant)}`,
    })),
  },
];

/** Organization-wide definitions (decision 166): a manager limited to Plant 1 is refused. */
const WRITES = { VIEWER: 403, COLLECTOR: 403, MANAGER: 403, OWNER: 200 };

/** The indicator's name as the owner reads it, or null when it is gone. */
async function ownerName(t: TestContext, plants: Plants, id: string) {
  const res = await api(t, 'GET', `/indicators/${id}`, { token: plants.tenant.owner.token });
  return res.status === 404 ? null : (res.body.name as string);
}

export const siteCases: SiteCase[] = [
  {
    method: 'PUT',
    route: '/indicators/:id',
    place: 'an indicator of every site, its expression changed',
    expect: WRITES,
    prepare: async (t, plants, caller) => {
      const id = await createIndicator(t, plants.tenant);
      return {
        url: `/indicators/${id}`,
        body: { name: 'rewritten', expressionParts: [{ type: 'number', value: '1000' }] },
        after: async () =>
          expect(await ownerName(t, plants, id)).toBe(caller.role === 'OWNER' ? 'rewritten' : 'matrix'),
      };
    },
  },
  {
    method: 'DELETE',
    route: '/indicators/:id',
    place: 'an indicator of every site',
    expect: WRITES,
    prepare: async (t, plants, caller) => {
      const id = await createIndicator(t, plants.tenant);
      return {
        url: `/indicators/${id}`,
        after: async () =>
          expect(await ownerName(t, plants, id)).toBe(caller.role === 'OWNER' ? null : 'matrix'),
      };
    },
  },
  {
    method: 'POST',
    route: '/indicators',
    place: 'a new indicator (for every site)',
    expect: WRITES,
    prepare: async () => ({ url: '/indicators', body: { name: 'new', expressionParts: constant } }),
  },
];
