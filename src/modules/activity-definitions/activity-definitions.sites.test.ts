import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { activitiesOnBothPlants, createPlants, type Plants } from '../../../test/security/plants.ts';

/**
 * The attack of issue 41 (item 3): a manager limited to Plant 1 changes an organization-wide
 * definition, then recalculates, and Plant 2's figures change. Plant 1's activity is amount 1,
 * Plant 2's amount 3, with calcCode `amount × 2`: 2 and 6 until someone recalculates.
 */
const t = useTestApp();
let w: Plants;

const definitionBody = (calcCode: string) => ({
  name: 'Business travel',
  uiCode: '',
  calcCode,
  inputs: [{ name: 'amount', type: 'number', required: true }],
});

beforeAll(async () => {
  w = await createPlants(t);
});

describe('a manager limited to Plant 1', () => {
  it('cannot change an organization-wide definition, so a recalculation keeps Plant 2 at 6', async () => {
    const { definitionId, values } = await activitiesOnBothPlants(t, w);
    const token = w.tenant.manager.token;
    const put = await api(t, 'PUT', `/activity-definitions/${definitionId}`, {
      token,
      body: definitionBody('return 1000'),
    });
    expect(put.status).toBe(403);
    expect(put.body.code).toBe('FORBIDDEN');
    expect(put.body.issues).toEqual([
      {
        message:
          'Activity definitions apply to every site of the organization: only owners and managers of all its sites can create, change or delete them',
      },
    ]);
    const recalculated = await api(t, 'POST', `/activity-definitions/${definitionId}/recalculate`, { token });
    expect(recalculated.status).toBe(200);
    expect(recalculated.body).toMatchObject({ recalculated: 1, changed: 0, failed: 0 });
    expect(await values()).toEqual({ plant1: 2, plant2: 6 });
    const stored = await api(t, 'GET', `/activity-definitions/${definitionId}`, { token });
    expect(stored.body.calcCode).toBe('return inputs.amount * 2');
  });

  it('cannot create or delete a definition either (403, nothing changes)', async () => {
    const token = w.tenant.manager.token;
    const created = await api(t, 'POST', '/activity-definitions', {
      token,
      body: definitionBody('return 1'),
    });
    expect(created.status).toBe(403);
    const { definitionId } = await activitiesOnBothPlants(t, w);
    const unused = await api(t, 'POST', '/activity-definitions', {
      token: w.tenant.owner.token,
      body: definitionBody('return 2'),
    });
    expect(unused.status).toBe(200);
    for (const id of [definitionId, unused.body.id]) {
      const del = await api(t, 'DELETE', `/activity-definitions/${id}`, { token });
      expect(del.status).toBe(403);
      expect((await api(t, 'GET', `/activity-definitions/${id}`, { token })).status).toBe(200);
    }
  });

  it('recalculates only Plant 1 after the owner changed the definition; the counts are Plant 1’s', async () => {
    const { definitionId, values } = await activitiesOnBothPlants(t, w);
    const put = await api(t, 'PUT', `/activity-definitions/${definitionId}`, {
      token: w.tenant.owner.token,
      body: definitionBody('return inputs.amount * 10'),
    });
    expect(put.status).toBe(200);
    const mine = await api(t, 'POST', `/activity-definitions/${definitionId}/recalculate`, {
      token: w.tenant.manager.token,
    });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({ recalculated: 1, changed: 1, failed: 0, skipped: 0, failures: [] });
    // 1 × 10 on Plant 1; Plant 2 keeps 3 × 2 until someone who may recalculates it.
    expect(await values()).toEqual({ plant1: 10, plant2: 6 });
    const all = await api(t, 'POST', `/activity-definitions/${definitionId}/recalculate`, {
      token: w.tenant.owner.token,
    });
    expect(all.body).toEqual({ recalculated: 2, changed: 1, failed: 0, skipped: 0, failures: [] });
    expect(await values()).toEqual({ plant1: 10, plant2: 30 });
  });
});

describe('a manager of both plants (no site limit)', () => {
  it('changes the definition and recalculates every site', async () => {
    const { definitionId, values } = await activitiesOnBothPlants(t, w);
    const token = w.wideManager.token;
    const put = await api(t, 'PUT', `/activity-definitions/${definitionId}`, {
      token,
      body: definitionBody('return inputs.amount * 5'),
    });
    expect(put.status).toBe(200);
    const res = await api(t, 'POST', `/activity-definitions/${definitionId}/recalculate`, { token });
    expect(res.body).toEqual({ recalculated: 2, changed: 2, failed: 0, skipped: 0, failures: [] });
    expect(await values()).toEqual({ plant1: 5, plant2: 15 });
  });
});
