import { expect } from 'vitest';
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
import { activitiesOnBothPlants, type Plants } from '../plants.ts';
import { asManagerOfEverySite } from './activity-definitions.ts';

const FORM_BODY = {
  name: 'Matrix form',
  periodType: 'MONTHLY',
  elements: [{ key: 'amount', label: 'Amount', type: 'NUMBER' }],
};

/** A site assigned to the tenant's manager, collector and viewer, so 403s come from the role. */
async function sharedSite(t: TestContext, tenant: Tenant) {
  const id = await createSite(t, tenant.organizationId);
  for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
    await assignSites(t, tenant.organizationId, member.userId, [id]);
  }
  return id;
}

export const cases: SecurityCase[] = [
  { method: 'GET', route: '/forms', prepare: async () => ({ url: '/forms' }) },
  {
    method: 'POST',
    route: '/forms',
    prepare: asManagerOfEverySite(async () => ({ url: '/forms', body: FORM_BODY })),
  },
  {
    method: 'GET',
    route: '/forms/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/forms/${(await createForm(t, tenant)).id}` }),
  },
  {
    method: 'PUT',
    route: '/forms/:id',
    tenantRecord: true,
    prepare: asManagerOfEverySite(async (t, tenant) => ({
      url: `/forms/${(await createForm(t, tenant)).id}`,
      body: FORM_BODY,
    })),
  },
  {
    method: 'DELETE',
    route: '/forms/:id',
    tenantRecord: true,
    prepare: asManagerOfEverySite(async (t, tenant) => ({
      url: `/forms/${(await createForm(t, tenant)).id}`,
    })),
  },
  {
    method: 'PUT',
    route: '/form-sites',
    // The form named in the body is another tenant's: 404, as for a path id.
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: '/form-sites',
      body: {
        formId: (await createForm(t, tenant)).id,
        siteIds: [await sharedSite(t, tenant)],
        years: [2025],
      },
    }),
  },
  { method: 'GET', route: '/form-sites', prepare: async () => ({ url: '/form-sites' }) },
];

/** Organization-wide definitions (decision 166): a manager limited to Plant 1 is refused. */
const WRITES = { VIEWER: 403, COLLECTOR: 403, MANAGER: 403, OWNER: 200 };

/** The form as the owner reads it: the ACTIVITY element's definition, or null when the form is gone. */
async function ownerView(t: TestContext, plants: Plants, formId: string) {
  const res = await api(t, 'GET', `/forms/${formId}`, { token: plants.tenant.owner.token });
  if (res.status === 404) return null;
  return res.body.elements[0].activityDefinitionId as string;
}

export const siteCases: SiteCase[] = [
  {
    method: 'PUT',
    route: '/forms/:id',
    place: 'a form active on both sites, its ACTIVITY element pointed at another definition',
    expect: WRITES,
    prepare: async (t, plants, caller) => {
      const { definitionId, formId } = await activitiesOnBothPlants(t, plants);
      const other = await createActivityDefinition(t, plants.tenant.organizationId, {
        calcCode: 'return 1000',
      });
      return {
        url: `/forms/${formId}`,
        body: {
          name: 'Trips',
          periodType: 'YEARLY',
          elements: [{ key: 'trips', label: 'Trips', type: 'ACTIVITY', activityDefinitionId: other }],
        },
        after: async () => {
          const now = await ownerView(t, plants, formId);
          expect(now).toBe(caller.role === 'OWNER' ? other : definitionId);
        },
      };
    },
  },
  {
    method: 'DELETE',
    route: '/forms/:id',
    place: 'a form active on both sites',
    expect: WRITES,
    prepare: async (t, plants, caller) => {
      const { definitionId, formId } = await activitiesOnBothPlants(t, plants);
      return {
        url: `/forms/${formId}`,
        after: async () => {
          expect(await ownerView(t, plants, formId)).toBe(caller.role === 'OWNER' ? null : definitionId);
        },
      };
    },
  },
  {
    method: 'POST',
    route: '/forms',
    place: 'a new form (for every site)',
    expect: WRITES,
    prepare: async () => ({ url: '/forms', body: FORM_BODY }),
  },
  {
    method: 'PUT',
    route: '/form-sites',
    place: 'a form made active on the other site',
    expect: { MANAGER: 403, OWNER: 200 },
    prepare: async (t, plants) => ({
      url: '/form-sites',
      body: { formId: (await createForm(t, plants.tenant)).id, siteIds: [plants.plant2], years: [2025] },
    }),
  },
  {
    method: 'PUT',
    route: '/form-sites',
    place: 'a form made active on the own site (the other site left as it is)',
    expect: { MANAGER: 200, OWNER: 200 },
    prepare: async (t, plants, caller) => {
      const form = await createForm(t, plants.tenant);
      await activateForm(t, plants.tenant, form.id, [plants.plant2], [2025]);
      return {
        url: '/form-sites',
        body: { formId: form.id, siteIds: [plants.plant1], years: [2025] },
        after: async () => {
          const res = await api(t, 'GET', `/form-sites?formId=${form.id}`, {
            token: plants.tenant.owner.token,
          });
          const sites = res.body.map((r: { siteId: string }) => r.siteId).sort();
          // The manager's replacement covers only Plant 1; the owner's covers both plants.
          const expected = caller.role === 'OWNER' ? [plants.plant1] : [plants.plant1, plants.plant2].sort();
          expect(sites).toEqual(expected);
        },
      };
    },
  },
];
