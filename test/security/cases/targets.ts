import { expect } from 'vitest';
import { api, type TestContext } from '../../helpers/app.ts';
import type { Tenant } from '../../helpers/factories.ts';
import type { SecurityCase, SiteCase } from '../matrix.ts';
import type { Plants } from '../plants.ts';
import { asManagerOfEverySite } from './activity-definitions.ts';
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
    prepare: asManagerOfEverySite(async (t, tenant) => ({
      url: '/targets',
      body: { indicatorId: await createIndicator(t, tenant), title: 'matrix' },
    })),
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
    prepare: asManagerOfEverySite(async (t, tenant) => ({
      url: `/targets/${await createTarget(t, tenant)}`,
      body: { title: 'renamed' },
    })),
  },
  {
    method: 'DELETE',
    route: '/targets/:id',
    tenantRecord: true,
    prepare: asManagerOfEverySite(async (t, tenant) => ({
      url: `/targets/${await createTarget(t, tenant)}`,
    })),
  },
];

/** Organization-wide definitions (decision 166): a manager limited to Plant 1 is refused. */
const WRITES = { VIEWER: 403, COLLECTOR: 403, MANAGER: 403, OWNER: 200 };

/** The target's entries as the owner reads them, or null when it is gone. */
async function ownerEntries(t: TestContext, plants: Plants, id: string) {
  const res = await api(t, 'GET', `/targets/${id}`, { token: plants.tenant.owner.token });
  return res.status === 404
    ? null
    : (res.body.targetEntries as { targetValue: number }[]).map((e) => e.targetValue);
}

/** A target of the whole organization (100) with entries for Plant 1 (40) and Plant 2 (60). */
async function targetOnBothPlants(t: TestContext, plants: Plants): Promise<string> {
  const res = await api(t, 'POST', '/targets', {
    token: plants.tenant.owner.token,
    body: {
      indicatorId: await createIndicator(t, plants.tenant),
      title: 'both plants',
      targetEntries: [
        { year: 2030, targetValue: 100 },
        { year: 2030, targetValue: 40, siteId: plants.plant1 },
        { year: 2030, targetValue: 60, siteId: plants.plant2 },
      ],
    },
  });
  if (res.status !== 200) throw new Error(`target not created: ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Reads (decision 167): a member limited to Plant 1 reads Plant 1's entry only; the owner all three. */
const READS = { VIEWER: 200, COLLECTOR: 200, MANAGER: 200, OWNER: 200 };
const readable = (caller: { role: string }) => (caller.role === 'OWNER' ? [100, 40, 60] : [40]);
const valuesOf = (target: { targetEntries: { targetValue: number }[] }) =>
  target.targetEntries.map((e) => e.targetValue);

export const siteCases: SiteCase[] = [
  {
    method: 'GET',
    route: '/targets/:id',
    place: 'a target with entries of the whole organization, Plant 1 and Plant 2',
    expect: READS,
    prepare: async (t, plants, caller) => ({
      url: `/targets/${await targetOnBothPlants(t, plants)}`,
      after: (res) => expect(valuesOf(res.body)).toEqual(readable(caller)),
    }),
  },
  {
    method: 'GET',
    route: '/targets',
    place: 'a target with entries of the whole organization, Plant 1 and Plant 2',
    expect: READS,
    prepare: async (t, plants, caller) => {
      const id = await targetOnBothPlants(t, plants);
      return {
        url: '/targets',
        after: (res) =>
          expect(valuesOf(res.body.find((x: { id: string }) => x.id === id))).toEqual(readable(caller)),
      };
    },
  },
  {
    method: 'PUT',
    route: '/targets/:id',
    place: 'a target of the whole organization, its entries replaced',
    expect: WRITES,
    prepare: async (t, plants, caller) => {
      const id = await createTarget(t, plants.tenant);
      return {
        url: `/targets/${id}`,
        body: { targetEntries: [{ year: 2030, targetValue: 1000, siteId: plants.plant1 }] },
        after: async () =>
          expect(await ownerEntries(t, plants, id)).toEqual(caller.role === 'OWNER' ? [1000] : [1]),
      };
    },
  },
  {
    method: 'DELETE',
    route: '/targets/:id',
    place: 'a target of the whole organization',
    expect: WRITES,
    prepare: async (t, plants, caller) => {
      const id = await createTarget(t, plants.tenant);
      return {
        url: `/targets/${id}`,
        after: async () =>
          expect(await ownerEntries(t, plants, id)).toEqual(caller.role === 'OWNER' ? null : [1]),
      };
    },
  },
  {
    method: 'POST',
    route: '/targets',
    place: 'a new target with entries for the own site only',
    expect: WRITES,
    prepare: async (t, plants) => ({
      url: '/targets',
      body: {
        indicatorId: await createIndicator(t, plants.tenant),
        title: 'Plant 1',
        targetEntries: [{ year: 2030, targetValue: 5, siteId: plants.plant1 }],
      },
    }),
  },
];
