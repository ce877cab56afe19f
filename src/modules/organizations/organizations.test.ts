import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createTenant, type Tenant } from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  tenant = await createTenant(t, 'Acme Group');
  other = await createTenant(t, 'Other Org');
});

describe('GET /organizations/current', () => {
  it('shows any member their own organization', async () => {
    for (const member of [tenant.viewer, tenant.collector, tenant.owner]) {
      const res = await api(t, 'GET', '/organizations/current', { token: member.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: tenant.organizationId,
        name: 'Acme Group',
        defaultStatuses: ['COMPLETED', 'APPROVED'],
        createdAt: expect.stringMatching(/Z$/),
        updatedAt: expect.stringMatching(/Z$/),
      });
    }
    const theirs = await api(t, 'GET', '/organizations/current', { token: other.viewer.token });
    expect(theirs.body).toMatchObject({ id: other.organizationId, name: 'Other Org' });
  });

  it('401 without a credential', async () => {
    const res = await api(t, 'GET', '/organizations/current');
    expect(res.status).toBe(401);
  });
});

describe('PATCH /organizations/current', () => {
  it('lets the owner rename the organization and set its default statuses', async () => {
    const own = await createTenant(t, 'Before');
    const before = await api(t, 'GET', '/organizations/current', { token: own.owner.token });

    const renamed = await api(t, 'PATCH', '/organizations/current', {
      token: own.owner.token,
      body: { name: '  After  ' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'After', defaultStatuses: ['COMPLETED', 'APPROVED'] });
    expect(Date.parse(renamed.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.body.updatedAt));

    const statuses = await api(t, 'PATCH', '/organizations/current', {
      token: own.apiKey,
      body: { defaultStatuses: ['APPROVED'] },
    });
    expect(statuses.status).toBe(200);
    expect(statuses.body).toMatchObject({ name: 'After', defaultStatuses: ['APPROVED'] });

    const read = await api(t, 'GET', '/organizations/current', { token: own.viewer.token });
    expect(read.body).toMatchObject({
      name: 'After',
      defaultStatuses: ['APPROVED'],
      createdAt: before.body.createdAt,
    });
    const untouched = await api(t, 'GET', '/organizations/current', { token: other.owner.token });
    expect(untouched.body).toMatchObject({ name: 'Other Org', defaultStatuses: ['COMPLETED', 'APPROVED'] });
  });

  it('names each invalid field (400) and changes nothing', async () => {
    const cases: [unknown, string][] = [
      [{ defaultStatuses: [] }, 'defaultStatuses'],
      [{ defaultStatuses: ['PENDING'] }, 'defaultStatuses.0'],
      [{ defaultStatuses: ['APPROVED', 'APPROVED'] }, 'defaultStatuses'],
      [{ defaultStatuses: 'APPROVED' }, 'defaultStatuses'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 5 }, 'name'],
      [{ name: 'x', plan: 'gold' }, 'plan'],
    ];
    for (const [body, path] of cases) {
      const res = await api(t, 'PATCH', '/organizations/current', { token: tenant.owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    const read = await api(t, 'GET', '/organizations/current', { token: tenant.owner.token });
    expect(read.body).toMatchObject({ name: 'Acme Group', defaultStatuses: ['COMPLETED', 'APPROVED'] });
  });

  it('is for owners only (403)', async () => {
    for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
      const res = await api(t, 'PATCH', '/organizations/current', {
        token: member.token,
        body: { name: 'Mine' },
      });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    expect((await api(t, 'PATCH', '/organizations/current', { body: { name: 'x' } })).status).toBe(401);
  });
});
