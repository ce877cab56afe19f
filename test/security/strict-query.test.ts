import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../helpers/app.ts';
import {
  activateForm,
  assignSites,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../helpers/factories.ts';

/** Query strings are strict on every route of the OpenAPI document, present and future. */
const t = useTestApp();
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant(t);
});

const UUID = '00000000-0000-4000-8000-000000000000';

describe('strict query strings', () => {
  it('every GET route of the OpenAPI document refuses an unknown parameter, naming it', async () => {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths)
      .filter(([, operations]) => operations['get'])
      .map(([path]) => path);
    expect(routes.length).toBeGreaterThan(15);
    for (const path of routes) {
      const url = `${path.replace(/\{[^}]+\}/g, UUID)}?noSuchParameter=1`;
      const res = await t.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${tenant.owner.token}` },
      });
      expect(res.statusCode, `${path}: ${res.body}`).toBe(400);
      expect(res.json().issues, path).toContainEqual(
        expect.objectContaining({
          path: 'query.noSuchParameter',
          message: 'query.noSuchParameter is not an allowed property',
          code: 'request.additionalProperties',
        }),
      );
    }
  });

  it('a typo of a filter is refused, not ignored (GET /dataset-items?datasetId=…)', async () => {
    const res = await api(t, 'GET', `/dataset-items?datasetId=${UUID}`, { token: tenant.owner.token });
    expect(res.status).toBe(400);
    expect(res.body.issues[0].path).toBe('query.datasetId');
  });

  it('integers in query strings are plain decimal digits', async () => {
    for (const year of ['0x7e8', '2024.0', '+5', '1e2', ' 2024', '2024 ']) {
      const res = await api(t, 'GET', `/form-submissions?year=${encodeURIComponent(year)}`, {
        token: tenant.owner.token,
      });
      expect(res.status, year).toBe(400);
      expect(res.body.issues[0].path, year).toBe('query.year');
    }
    for (const limit of ['0x10', '1e1', '10.0']) {
      const res = await api(t, 'GET', `/sites?limit=${limit}`, { token: tenant.owner.token });
      expect(res.status, limit).toBe(400);
    }
    expect((await api(t, 'GET', '/form-submissions?year=2024', { token: tenant.owner.token })).status).toBe(
      200,
    );
    expect((await api(t, 'GET', '/form-submissions?year=-1', { token: tenant.owner.token })).status).toBe(
      400,
    );
  });

  it('GET /form-submissions?siteId=<a site the caller cannot read> is a 403, as GET /activities', async () => {
    const visible = await createSite(t, tenant.organizationId);
    const hidden = await createSite(t, tenant.organizationId);
    await assignSites(t, tenant.organizationId, tenant.collector.userId, [visible]);
    const form = await createForm(t, tenant);
    await activateForm(t, tenant, form.id, [visible, hidden], [2025]);
    const token = tenant.collector.token;
    expect((await api(t, 'GET', `/form-submissions?siteId=${visible}`, { token })).status).toBe(200);
    const res = await api(t, 'GET', `/form-submissions?siteId=${hidden}`, { token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });
});
