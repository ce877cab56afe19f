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

/**
 * Who reads which entries of a target (decision 167): a member limited to some sites sees the
 * entries of their sites (and of the sites under them) and nothing of the other sites' or the
 * whole organization's; owners and members of every site see every entry.
 */
const t = useTestApp();
let tenant: Tenant;
let plant1: string;
let line1: string;
let plant2: string;
let wide: Member;
let targetId: string;

const values = (body: { targetEntries: { targetValue: number }[] }) =>
  body.targetEntries.map((e) => e.targetValue);

beforeAll(async () => {
  tenant = await createTenant(t);
  const org = tenant.organizationId;
  plant1 = await createSite(t, org, { name: 'Plant 1' });
  line1 = await createSite(t, org, { name: 'Line 1', parentId: plant1 });
  plant2 = await createSite(t, org, { name: 'Plant 2' });
  for (const m of [tenant.manager, tenant.collector, tenant.viewer])
    await assignSites(t, org, m.userId, [plant1]);
  wide = await addMember(t, org, 'VIEWER');
  await assignSites(t, org, wide.userId, [plant1, plant2]);
  const indicator = await api(t, 'POST', '/indicators', {
    token: tenant.owner.token,
    body: { name: 'Scope 2', expressionParts: [{ type: 'number', value: '1' }] },
  });
  const target = await api(t, 'POST', '/targets', {
    token: tenant.owner.token,
    body: {
      indicatorId: indicator.body.id,
      title: 'Net zero',
      targetEntries: [
        { year: 2030, targetValue: 100 },
        { year: 2030, targetValue: 40, siteId: plant1 },
        { year: 2030, targetValue: 15, siteId: line1 },
        { year: 2030, targetValue: 60, siteId: plant2 },
      ],
    },
  });
  expect(target.status, JSON.stringify(target.body)).toBe(200);
  targetId = target.body.id;
});

describe('target reads within site limits (decision 167)', () => {
  it('gives a member limited to Plant 1 only the entries of Plant 1 and its line, by id and in the list', async () => {
    for (const member of [tenant.viewer, tenant.collector, tenant.manager]) {
      const one = await api(t, 'GET', `/targets/${targetId}`, { token: member.token });
      expect(one.status).toBe(200);
      expect(values(one.body)).toEqual([40, 15]);
      expect(one.body.targetEntries.map((e: { siteId: string }) => e.siteId)).toEqual([plant1, line1]);
      const list = await api(t, 'GET', '/targets', { token: member.token });
      expect(list.status).toBe(200);
      expect(list.body.map(values)).toEqual([[40, 15]]);
      // Nothing of Plant 2's figure (60) nor of the organization's (100) in any form.
      expect(JSON.stringify(list.body)).not.toContain(plant2);
    }
  });

  it('gives owners and members of every site every entry', async () => {
    for (const member of [tenant.owner, wide]) {
      const one = await api(t, 'GET', `/targets/${targetId}`, { token: member.token });
      expect(values(one.body)).toEqual([100, 40, 15, 60]);
      const list = await api(t, 'GET', '/targets', { token: member.token });
      expect(list.body.map(values)).toEqual([[100, 40, 15, 60]]);
    }
  });

  it('gives a member of no site the target without entries', async () => {
    const nobody = await addMember(t, tenant.organizationId, 'VIEWER');
    const one = await api(t, 'GET', `/targets/${targetId}`, { token: nobody.token });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ title: 'Net zero', targetEntries: [] });
  });
});
