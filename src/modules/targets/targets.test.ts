import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  addMember,
  assignSites,
  createSite,
  createTenant,
  type Member,
  type Tenant,
} from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
let stranger: Tenant;
let indicatorId: string;
let site: string;
let otherSite: string;
/** A manager of every site: targets are organization-wide (decision 166). */
let wide: Member;

beforeAll(async () => {
  tenant = await createTenant(t);
  stranger = await createTenant(t);
  site = await createSite(t, tenant.organizationId, { name: 'Plant' });
  otherSite = await createSite(t, tenant.organizationId, { name: 'Elsewhere' });
  await assignSites(t, tenant.organizationId, tenant.manager.userId, [site]);
  wide = await addMember(t, tenant.organizationId, 'MANAGER');
  await assignSites(t, tenant.organizationId, wide.userId, [site, otherSite]);
  const res = await api(t, 'POST', '/indicators', {
    token: tenant.owner.token,
    body: { name: 'Scope 2', expressionParts: [{ type: 'number', value: '1' }] },
  });
  indicatorId = res.body.id;
});

const post = (body: Record<string, unknown>, token = wide.token) =>
  api(t, 'POST', '/targets', { token, body: { indicatorId, title: 'Net zero', ...body } });

describe('targets', () => {
  it('sets a 2030 target against a 2019 baseline, with period and type on each entry', async () => {
    const res = await post({
      baselineYear: 2019,
      metadata: { source: 'SBTi' },
      targetEntries: [
        { year: 2030, targetValue: -50, type: 'PERCENTAGE' },
        { year: 2025, quarter: 2, targetValue: 120, siteId: site },
        { year: 2025, month: 3, targetValue: 40 },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      indicatorId,
      organizationId: tenant.organizationId,
      title: 'Net zero',
      baselineYear: 2019,
      baselineMonth: null,
      baselineQuarter: null,
      metadata: { source: 'SBTi' },
      targetEntries: [
        {
          year: 2030,
          targetValue: -50,
          siteId: null,
          month: null,
          quarter: null,
          period: 'YEARLY',
          type: 'PERCENTAGE',
        },
        { year: 2025, targetValue: 120, siteId: site, quarter: 2, period: 'QUARTERLY', type: 'ABSOLUTE' },
        { year: 2025, targetValue: 40, month: 3, period: 'MONTHLY', type: 'ABSOLUTE' },
      ],
    });
    // Every entry for the owner; a member limited to some sites reads fewer (targets.reads.test.ts).
    const got = await api(t, 'GET', `/targets/${res.body.id}`, { token: tenant.owner.token });
    expect(got.body).toEqual(res.body);
    const list = await api(t, 'GET', `/targets?indicatorId=${indicatorId}`, { token: tenant.viewer.token });
    expect(list.body.map((x: { id: string }) => x.id)).toContain(res.body.id);
  });

  it('replaces each provided field whole on PUT, and keeps the indicator', async () => {
    const created = await post({ baselineYear: 2019, targetEntries: [{ year: 2030, targetValue: 1 }] });
    const res = await api(t, 'PUT', `/targets/${created.body.id}`, {
      token: wide.token,
      body: { targetEntries: [{ year: 2031, targetValue: 2 }], baselineYear: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'Net zero', baselineYear: null, indicatorId });
    expect(res.body.targetEntries).toEqual([
      {
        year: 2031,
        targetValue: 2,
        siteId: null,
        month: null,
        quarter: null,
        period: 'YEARLY',
        type: 'ABSOLUTE',
      },
    ]);
    const moved = await api(t, 'PUT', `/targets/${created.body.id}`, {
      token: wide.token,
      body: { indicatorId },
    });
    expect(moved.status).toBe(400);
  });

  it.each([
    ['a year out of range', { targetEntries: [{ year: 1800, targetValue: 1 }] }, 'targetEntries.0.year'],
    [
      'a month out of range',
      { targetEntries: [{ year: 2030, month: 13, targetValue: 1 }] },
      'targetEntries.0.month',
    ],
    [
      'a quarter out of range',
      { targetEntries: [{ year: 2030, quarter: 5, targetValue: 1 }] },
      'targetEntries.0.quarter',
    ],
    [
      'month and quarter',
      { targetEntries: [{ year: 2030, month: 1, quarter: 1, targetValue: 1 }] },
      'targetEntries.0.quarter',
    ],
    ['a text value', { targetEntries: [{ year: 2030, targetValue: '1' }] }, 'targetEntries.0.targetValue'],
    [
      'an unknown site',
      { targetEntries: [{ year: 2030, targetValue: 1, siteId: '6f1c3a2e-0000-4000-8000-000000000000' }] },
      'targetEntries.0.siteId',
    ],
    ['an unknown indicator', { indicatorId: '6f1c3a2e-0000-4000-8000-000000000000' }, 'indicatorId'],
  ])('refuses %s (400)', async (_name, body, path) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.issues)).toContain(path);
  });

  it('refuses a manager limited to some sites (403), whatever the entries, and another tenant’s indicator or target', async () => {
    for (const siteId of [otherSite, site]) {
      const refused = await post(
        { targetEntries: [{ year: 2030, targetValue: 1, siteId }] },
        tenant.manager.token,
      );
      expect(refused.status).toBe(403);
      expect(refused.body.issues).toEqual([
        {
          message:
            'Targets belong to indicators of the whole organization: only owners and managers of all its sites can create, change or delete them',
        },
      ]);
    }
    expect((await post({}, stranger.owner.token)).status).toBe(400);
    const created = await post({});
    expect((await api(t, 'GET', `/targets/${created.body.id}`, { token: stranger.owner.token })).status).toBe(
      404,
    );
    expect(
      (await api(t, 'DELETE', `/targets/${created.body.id}`, { token: stranger.owner.token })).status,
    ).toBe(404);
    expect((await post({}, tenant.collector.token)).status).toBe(403);
    expect((await api(t, 'DELETE', `/targets/${created.body.id}`, { token: wide.token })).status).toBe(200);
    expect((await api(t, 'GET', `/targets/${created.body.id}`, { token: tenant.viewer.token })).status).toBe(
      404,
    );
  });
});

describe('targets: a manager limited to some sites (decision 166)', () => {
  it('cannot change or delete a target of the whole organization; the target stays as it was', async () => {
    const created = await post({ targetEntries: [{ year: 2030, targetValue: 10 }] });
    expect(created.status).toBe(200);
    const put = await api(t, 'PUT', `/targets/${created.body.id}`, {
      token: tenant.manager.token,
      body: { targetEntries: [{ year: 2030, targetValue: 1000, siteId: site }] },
    });
    expect(put.status).toBe(403);
    const del = await api(t, 'DELETE', `/targets/${created.body.id}`, { token: tenant.manager.token });
    expect(del.status).toBe(403);
    const kept = await api(t, 'GET', `/targets/${created.body.id}`, { token: tenant.owner.token });
    expect(kept.body.targetEntries).toMatchObject([{ year: 2030, targetValue: 10, siteId: null }]);
  });
});
