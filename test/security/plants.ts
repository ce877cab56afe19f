import type { Role } from '../../src/db/schema/index.ts';
import { api, type TestContext } from '../helpers/app.ts';
import {
  activateForm,
  addMember,
  assignSites,
  createActivityDefinition,
  createForm,
  createSite,
  createTenant,
  type Member,
  type Tenant,
} from '../helpers/factories.ts';
import { createUploadedMedia } from '../helpers/media.ts';

/**
 * The world of the site-limit checks: an organization with two plants. Its manager, collector
 * and viewer are limited to Plant 1; the owner sees both; `wideManager` is a manager assigned
 * both plants (a manager without a site limit).
 */
export interface Plants {
  tenant: Tenant;
  plant1: string;
  plant2: string;
  wideManager: Member;
  /** The member of `role` limited to Plant 1 (the owner for OWNER). */
  member(role: Role): Member;
  /**
   * An uploaded file attached (by the owner) as the FILE value of a fresh form on `siteId`;
   * answers the file's id and the value's submission.
   */
  attachedFile(siteId: string): Promise<{ mediaId: string; formId: string }>;
  /** An uploaded file attached nowhere, uploaded by `uploader`. */
  unattachedFile(uploader: Member): Promise<string>;
  /** A fresh form with a FILE element `doc`, active on both plants for 2025. */
  fileForm(): Promise<string>;
}

export async function createPlants(t: TestContext): Promise<Plants> {
  const tenant = await createTenant(t, 'Two plants');
  const org = tenant.organizationId;
  const plant1 = await createSite(t, org, { name: 'Plant 1' });
  const plant2 = await createSite(t, org, { name: 'Plant 2' });
  for (const m of [tenant.manager, tenant.collector, tenant.viewer])
    await assignSites(t, org, m.userId, [plant1]);
  const wideManager = await addMember(t, org, 'MANAGER');
  await assignSites(t, org, wideManager.userId, [plant1, plant2]);

  const fileForm = async () => {
    const form = await createForm(t, tenant, {
      periodType: 'YEARLY',
      elements: [{ key: 'doc', label: 'Invoice', type: 'FILE' }],
    });
    await activateForm(t, tenant, form.id, [plant1, plant2], [2025]);
    return form.id;
  };
  return {
    tenant,
    plant1,
    plant2,
    wideManager,
    member: (role) =>
      ({ OWNER: tenant.owner, MANAGER: tenant.manager, COLLECTOR: tenant.collector, VIEWER: tenant.viewer })[
        role
      ],
    fileForm,
    async attachedFile(siteId) {
      const mediaId = await createUploadedMedia(t, org, tenant.owner.userId);
      const formId = await fileForm();
      const res = await api(t, 'POST', '/form-submissions', {
        token: tenant.owner.token,
        body: { formId, siteId, year: 2025, values: [{ elementKey: 'doc', periodUnit: 1, value: mediaId }] },
      });
      if (res.status !== 200) throw new Error(`file not attached: ${JSON.stringify(res.body)}`);
      return { mediaId, formId };
    },
    unattachedFile: (uploader) => createUploadedMedia(t, org, uploader.userId),
  };
}

/**
 * An activity definition (`amount × 2`) used by an ACTIVITY element `trips` of a form active on
 * both plants, with one activity on each (amount 1 → 2 on Plant 1, amount 3 → 6 on Plant 2),
 * entered by the owner.
 */
export async function activitiesOnBothPlants(t: TestContext, plants: Plants) {
  const { tenant, plant1, plant2 } = plants;
  const definitionId = await createActivityDefinition(t, tenant.organizationId, {
    calcCode: 'return inputs.amount * 2',
  });
  const form = await createForm(t, tenant, {
    periodType: 'YEARLY',
    elements: [{ key: 'trips', label: 'Trips', type: 'ACTIVITY', activityDefinitionId: definitionId }],
  });
  await activateForm(t, tenant, form.id, [plant1, plant2], [2025]);
  const activityIds: Record<string, string> = {};
  for (const [siteId, amount] of [
    [plant1, 1],
    [plant2, 3],
  ] as const) {
    const res = await api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId,
        year: 2025,
        values: [{ elementKey: 'trips', periodUnit: 1, value: [{ amount }] }],
      },
    });
    if (res.status !== 200) throw new Error(`activity not stored: ${JSON.stringify(res.body)}`);
    activityIds[siteId] = res.body.values[0].activities[0].activityId;
  }
  /** The stored value of each plant's activity. */
  const values = async () => {
    const rows = await t.database.tenant(tenant.organizationId, (tx) =>
      tx
        .selectFrom('activities')
        .select(['site_id', 'value'])
        .where('organization_id', '=', tenant.organizationId)
        .where('activity_definition_id', '=', definitionId)
        .execute(),
    );
    const bySite = new Map(rows.map((r) => [r.site_id, Number(r.value)]));
    return { plant1: bySite.get(plant1), plant2: bySite.get(plant2) };
  };
  return { definitionId, formId: form.id, activityIds, values };
}
