import { api, type TestContext } from '../../helpers/app.ts';
import {
  activateForm,
  assignSites,
  createActivityDefinition,
  createForm,
  createSite,
  type Tenant,
} from '../../helpers/factories.ts';
import type { SecurityCase, SiteCase } from '../matrix.ts';
import { activitiesOnBothPlants } from '../plants.ts';

/**
 * A monthly form with an ACTIVITY element `trips`, active for 2025 on a site assigned to the
 * tenant's manager, collector and viewer (so 403s come from the role).
 */
async function activityForm(t: TestContext, tenant: Tenant) {
  const siteId = await createSite(t, tenant.organizationId);
  for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
    await assignSites(t, tenant.organizationId, member.userId, [siteId]);
  }
  const definitionId = await createActivityDefinition(t, tenant.organizationId);
  const form = await createForm(t, tenant, {
    elements: [{ key: 'trips', label: 'Trips', type: 'ACTIVITY', activityDefinitionId: definitionId }],
  });
  await activateForm(t, tenant, form.id, [siteId], [2025]);
  return { formId: form.id, siteId, definitionId };
}

/** A stored activity of the tenant; answers its id. */
async function storedActivity(t: TestContext, tenant: Tenant): Promise<string> {
  const { formId, siteId } = await activityForm(t, tenant);
  const res = await api(t, 'POST', '/form-submissions', {
    token: tenant.owner.token,
    body: {
      formId,
      siteId,
      year: 2025,
      values: [{ elementKey: 'trips', periodUnit: 1, value: [{ amount: 1 }] }],
    },
  });
  if (res.status !== 200) throw new Error(`activity not stored: ${JSON.stringify(res.body)}`);
  return res.body.values[0].activities[0].activityId;
}

/** A marker body for a period of a fresh form; with `marked`, the period is marked first. */
async function markerBody(t: TestContext, tenant: Tenant, marked: boolean) {
  const { formId, siteId } = await activityForm(t, tenant);
  const body = { formId, key: 'trips', siteId, year: 2025, periodUnit: 2 };
  if (marked) {
    const res = await api(t, 'POST', '/activities/no-activity/mark', { token: tenant.owner.token, body });
    if (res.status !== 200) throw new Error(`period not marked: ${JSON.stringify(res.body)}`);
  }
  return body;
}

export const cases: SecurityCase[] = [
  {
    method: 'GET',
    route: '/activities/:activityId/history',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/activities/${await storedActivity(t, tenant)}/history` }),
  },
  {
    method: 'GET',
    route: '/activities',
    prepare: async (t, tenant) => {
      const { formId, siteId } = await activityForm(t, tenant);
      return { url: `/activities?formId=${formId}&key=trips&siteIds=${siteId}` };
    },
  },
  {
    method: 'PATCH',
    route: '/activities/:activityId',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/activities/${await storedActivity(t, tenant)}`,
      body: { input: { amount: 2 } },
    }),
  },
  {
    method: 'POST',
    route: '/activities/no-activity/mark',
    prepare: async (t, tenant) => ({
      url: '/activities/no-activity/mark',
      body: await markerBody(t, tenant, false),
    }),
  },
  {
    method: 'POST',
    route: '/activities/no-activity/unmark',
    prepare: async (t, tenant) => ({
      url: '/activities/no-activity/unmark',
      body: await markerBody(t, tenant, true),
    }),
  },
  {
    method: 'POST',
    route: '/activity-definitions/:id/recalculate',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/activity-definitions/${(await activityForm(t, tenant)).definitionId}/recalculate`,
    }),
  },
];

/**
 * Recalculating touches the caller's sites only: after the definition changed to `amount × 10`,
 * a manager limited to Plant 1 recalculates Plant 1's activity (1 → 10) and Plant 2's keeps 6;
 * the owner recalculates both (10 and 30). The answer counts what was recalculated.
 */
export const siteCases: SiteCase[] = [
  {
    method: 'POST',
    route: '/activity-definitions/:id/recalculate',
    place: 'a definition used on both sites, changed since',
    expect: { VIEWER: 403, COLLECTOR: 403, MANAGER: 200, OWNER: 200 },
    prepare: async (t, plants, caller) => {
      const { definitionId, values } = await activitiesOnBothPlants(t, plants);
      await t.database.system((tx) =>
        tx
          .updateTable('activity_definitions')
          .set({ calc_code: 'return inputs.amount * 10' })
          .where('id', '=', definitionId)
          .execute(),
      );
      const owner = caller.role === 'OWNER';
      return {
        url: `/activity-definitions/${definitionId}/recalculate`,
        after: async (res) => {
          const now = await values();
          const expected =
            res.status !== 200
              ? { plant1: 2, plant2: 6 }
              : owner
                ? { plant1: 10, plant2: 30 }
                : { plant1: 10, plant2: 6 };
          if (now.plant1 !== expected.plant1 || now.plant2 !== expected.plant2)
            throw new Error(`figures ${JSON.stringify(now)}, expected ${JSON.stringify(expected)}`);
          if (
            res.status === 200 &&
            (res.body.recalculated !== (owner ? 2 : 1) || res.body.changed !== (owner ? 2 : 1))
          )
            throw new Error(`counts of other sites: ${JSON.stringify(res.body)}`);
        },
      };
    },
  },
  ...(['Plant 1', 'Plant 2'] as const).map(
    (plant): SiteCase => ({
      method: 'PATCH',
      route: '/activities/:activityId',
      place: plant === 'Plant 1' ? 'an activity on their site' : 'an activity on the other site',
      expect:
        plant === 'Plant 1'
          ? { VIEWER: 403, COLLECTOR: 200, MANAGER: 200, OWNER: 200 }
          : { VIEWER: 403, COLLECTOR: 404, MANAGER: 404, OWNER: 200 },
      prepare: async (t, plants) => {
        const { activityIds, values } = await activitiesOnBothPlants(t, plants);
        const siteId = plant === 'Plant 1' ? plants.plant1 : plants.plant2;
        return {
          url: `/activities/${activityIds[siteId]}`,
          body: { input: { amount: 50 } },
          after: async (res) => {
            if (res.status === 200) return;
            const now = await values();
            if (now.plant1 !== 2 || now.plant2 !== 6)
              throw new Error(`figures changed: ${JSON.stringify(now)}`);
          },
        };
      },
    }),
  ),
];
