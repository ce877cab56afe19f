import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../helpers/app.ts';
import { assignSites, createSite, createTenant, type Tenant } from '../helpers/factories.ts';

/**
 * Issue 25, item 2: widgets follow their dashboard's publish rule. A manager limited to one site
 * cannot, through widgets, publish data of a public dashboard whose filter goes beyond their
 * site, nor change or delete the owner's widgets there; on a dashboard filtered to their site
 * (or a private one) they can.
 */
const t = useTestApp();
let tenant: Tenant;
let mine: string;
let theirs: string;
let indicatorId: string;

beforeAll(async () => {
  tenant = await createTenant(t);
  mine = await createSite(t, tenant.organizationId, { name: 'Plant' });
  theirs = await createSite(t, tenant.organizationId, { name: 'Elsewhere' });
  await assignSites(t, tenant.organizationId, tenant.manager.userId, [mine]);
  const res = await api(t, 'POST', '/indicators', {
    token: tenant.owner.token,
    body: { name: 'Electricity', expressionParts: [{ type: 'number', value: '1' }] },
  });
  indicatorId = res.body.id;
});

const dashboard = async (body: Record<string, unknown>) =>
  (await api(t, 'POST', '/dashboards', { token: tenant.owner.token, body: { name: 'Energy', ...body } })).body
    .id as string;
const widget = { type: 'VALUE', title: 'Electricity', indicatorIds: [] as string[] };
const addWidget = (dashboardId: string, token: string) =>
  api(t, 'POST', `/dashboards/${dashboardId}/widgets`, {
    token,
    body: { ...widget, indicatorIds: [indicatorId] },
  });

describe('widgets of a public dashboard', () => {
  it('a site-limited manager can neither add, change nor remove widgets when the filter exceeds their sites', async () => {
    for (const filter of [{}, { siteIds: [mine, theirs] }]) {
      const id = await dashboard({ isPublic: true, globalFilter: filter });
      const owners = await addWidget(id, tenant.owner.token);
      expect(owners.status).toBe(200);

      const added = await addWidget(id, tenant.manager.token);
      const changed = await api(t, 'PUT', `/dashboards/${id}/widgets/${owners.body.id}`, {
        token: tenant.manager.token,
        body: { title: 'Mine now' },
      });
      const removed = await api(t, 'DELETE', `/dashboards/${id}/widgets/${owners.body.id}`, {
        token: tenant.manager.token,
      });

      expect([added.status, changed.status, removed.status]).toEqual([403, 403, 403]);
      expect(added.body.code).toBe('FORBIDDEN');
      // Nothing changed: the public dashboard still shows the owner's widget only, as it was.
      const stored = await api(t, 'GET', `/dashboards/${id}`, { token: tenant.owner.token });
      expect(stored.body.widgets.map((w: { title: string }) => w.title)).toEqual(['Electricity']);
      const shown = await api(t, 'GET', `/public/dashboards/${id}`);
      expect(shown.status).toBe(200);
    }
  });

  it('the same manager may change widgets on a public dashboard filtered to their site, and on a private one', async () => {
    for (const body of [{ isPublic: true, globalFilter: { siteIds: [mine] } }, { isPublic: false }]) {
      const id = await dashboard(body);
      const added = await addWidget(id, tenant.manager.token);
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      const changed = await api(t, 'PUT', `/dashboards/${id}/widgets/${added.body.id}`, {
        token: tenant.manager.token,
        body: { title: 'Renamed' },
      });
      expect(changed.status).toBe(200);
      const removed = await api(t, 'DELETE', `/dashboards/${id}/widgets/${added.body.id}`, {
        token: tenant.manager.token,
      });
      expect(removed.status).toBe(200);
    }
  });
});
