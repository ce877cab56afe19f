import { api, type TestContext } from '../../helpers/app.ts';
import type { Tenant } from '../../helpers/factories.ts';
import type { SecurityCase } from '../matrix.ts';
import { createIndicator } from './indicators.ts';

/** A dashboard stored through the API (as the owner), with one widget; returns both ids. */
async function createDashboard(
  t: TestContext,
  tenant: Tenant,
  body: Record<string, unknown> = {},
): Promise<{ id: string; widgetId: string }> {
  const res = await api(t, 'POST', '/dashboards', {
    token: tenant.owner.token,
    body: { name: 'matrix', ...body },
  });
  if (res.status !== 200) throw new Error(`dashboard not created: ${JSON.stringify(res.body)}`);
  const widget = await api(t, 'POST', `/dashboards/${res.body.id}/widgets`, {
    token: tenant.owner.token,
    body: { type: 'VALUE', title: 'matrix', indicatorIds: [await createIndicator(t, tenant)] },
  });
  if (widget.status !== 200) throw new Error(`widget not created: ${JSON.stringify(widget.body)}`);
  return { id: res.body.id, widgetId: widget.body.id };
}

export const cases: SecurityCase[] = [
  {
    method: 'POST',
    route: '/dashboards',
    prepare: async () => ({ url: '/dashboards', body: { name: 'matrix' } }),
  },
  { method: 'GET', route: '/dashboards', prepare: async () => ({ url: '/dashboards' }) },
  {
    method: 'GET',
    route: '/dashboards/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/dashboards/${(await createDashboard(t, tenant)).id}` }),
  },
  {
    method: 'GET',
    route: '/dashboards/:id/data',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/dashboards/${(await createDashboard(t, tenant)).id}/data` }),
  },
  {
    method: 'PUT',
    route: '/dashboards/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/dashboards/${(await createDashboard(t, tenant)).id}`,
      body: { name: 'renamed' },
    }),
  },
  {
    method: 'DELETE',
    route: '/dashboards/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/dashboards/${(await createDashboard(t, tenant)).id}` }),
  },
  {
    method: 'POST',
    route: '/dashboards/:id/widgets',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/dashboards/${(await createDashboard(t, tenant)).id}/widgets`,
      body: { type: 'LINE', title: 'matrix', indicatorIds: [await createIndicator(t, tenant)] },
    }),
  },
  {
    method: 'PUT',
    route: '/dashboards/:id/widgets/:widgetId',
    tenantRecord: true,
    prepare: async (t, tenant) => {
      const { id, widgetId } = await createDashboard(t, tenant);
      return { url: `/dashboards/${id}/widgets/${widgetId}`, body: { title: 'renamed' } };
    },
  },
  {
    method: 'DELETE',
    route: '/dashboards/:id/widgets/:widgetId',
    tenantRecord: true,
    prepare: async (t, tenant) => {
      const { id, widgetId } = await createDashboard(t, tenant);
      return { url: `/dashboards/${id}/widgets/${widgetId}` };
    },
  },
  {
    method: 'GET',
    route: '/public/dashboards/:id',
    prepare: async (t, tenant) => ({
      url: `/public/dashboards/${(await createDashboard(t, tenant, { isPublic: true })).id}`,
    }),
  },
  {
    method: 'POST',
    route: '/public/dashboards/:id/access',
    prepare: async (t, tenant) => ({
      url: `/public/dashboards/${(await createDashboard(t, tenant, { isPublic: true, password: 'matrix secret' })).id}/access`,
      body: { password: 'matrix secret' },
    }),
  },
];
