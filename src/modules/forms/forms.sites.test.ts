import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createActivityDefinition } from '../../../test/helpers/factories.ts';
import { activitiesOnBothPlants, createPlants, type Plants } from '../../../test/security/plants.ts';

/**
 * Issue 41, item 3, for forms (decision 166): a manager limited to Plant 1 changed a form active on
 * both plants (its ACTIVITY element pointed at another definition, its rules) or deleted it, and so
 * changed what Plant 2 reports. Plant 1's activity is amount 1, Plant 2's amount 3 (`amount × 2`).
 */
const t = useTestApp();
let w: Plants;

const MESSAGE =
  'Forms apply to every site of the organization: only owners and managers of all its sites can create, change or delete them';

beforeAll(async () => {
  w = await createPlants(t);
});

const formBody = (activityDefinitionId: string) => ({
  name: 'Trips',
  periodType: 'YEARLY',
  elements: [{ key: 'trips', label: 'Trips', type: 'ACTIVITY', activityDefinitionId }],
});

/** Plant 2's activity entered again by its owner, as the next report would: its calculated value. */
async function plant2Figure(formId: string): Promise<number> {
  const res = await api(t, 'POST', '/form-submissions', {
    token: w.tenant.owner.token,
    body: {
      formId,
      siteId: w.plant2,
      year: 2025,
      values: [{ elementKey: 'trips', periodUnit: 1, value: [{ amount: 3 }] }],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return Number(res.body.values[0].activities[0].value);
}

describe('a manager limited to Plant 1', () => {
  it('cannot point a form’s ACTIVITY element at another definition: Plant 2 still reports 3 × 2', async () => {
    const { formId, definitionId } = await activitiesOnBothPlants(t, w);
    const other = await createActivityDefinition(t, w.tenant.organizationId, { calcCode: 'return 1000' });
    const put = await api(t, 'PUT', `/forms/${formId}`, {
      token: w.tenant.manager.token,
      body: formBody(other),
    });
    expect(put.status).toBe(403);
    expect(put.body).toMatchObject({ code: 'FORBIDDEN', issues: [{ message: MESSAGE }] });
    const form = await api(t, 'GET', `/forms/${formId}`, { token: w.tenant.owner.token });
    expect(form.body.elements[0].activityDefinitionId).toBe(definitionId);
    expect(await plant2Figure(formId)).toBe(6);
  });

  it('cannot delete a form active on both plants, nor create one', async () => {
    const { formId } = await activitiesOnBothPlants(t, w);
    const del = await api(t, 'DELETE', `/forms/${formId}`, { token: w.tenant.manager.token });
    expect(del.status).toBe(403);
    expect(del.body.issues).toEqual([{ message: MESSAGE }]);
    expect((await api(t, 'GET', `/forms/${formId}`, { token: w.tenant.owner.token })).status).toBe(200);
    const created = await api(t, 'POST', '/forms', {
      token: w.tenant.manager.token,
      body: { name: 'Mine', periodType: 'YEARLY', elements: [{ key: 'n', label: 'N', type: 'NUMBER' }] },
    });
    expect(created.status).toBe(403);
  });

  it('is refused before the form is looked up: an unknown form is a 403 too, saying nothing of it', async () => {
    const res = await api(t, 'DELETE', '/forms/00000000-0000-4000-8000-000000000000', {
      token: w.tenant.manager.token,
    });
    expect(res.status).toBe(403);
  });
});

describe('a manager of both plants', () => {
  it('changes the form as an owner would: Plant 2 then reports 1000', async () => {
    const { formId } = await activitiesOnBothPlants(t, w);
    const other = await createActivityDefinition(t, w.tenant.organizationId, { calcCode: 'return 1000' });
    const put = await api(t, 'PUT', `/forms/${formId}`, {
      token: w.wideManager.token,
      body: formBody(other),
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(await plant2Figure(formId)).toBe(1000);
  });
});
