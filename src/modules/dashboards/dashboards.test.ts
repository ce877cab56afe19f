import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { assignSites, createSite, createTenant, type Tenant } from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
let stranger: Tenant;
let indicatorId: string;
let site: string;
let otherSite: string;

beforeAll(async () => {
  tenant = await createTenant(t);
  stranger = await createTenant(t);
  site = await createSite(t, tenant.organizationId, { name: 'Plant' });
  otherSite = await createSite(t, tenant.organizationId, { name: 'Elsewhere' });
  await assignSites(t, tenant.organizationId, tenant.manager.userId, [site]);
  const res = await api(t, 'POST', '/indicators', {
    token: tenant.owner.token,
    body: { name: 'Electricity', expressionParts: [{ type: 'number', value: '1' }] },
  });
  indicatorId = res.body.id;
});

const create = (body: Record<string, unknown>, token = tenant.manager.token) =>
  api(t, 'POST', '/dashboards', { token, body: { name: 'Energy', ...body } });
const put = (id: string, body: Record<string, unknown>, token = tenant.manager.token) =>
  api(t, 'PUT', `/dashboards/${id}`, { token, body });

describe('dashboards', () => {
  it('creates a private dashboard with defaults and answers every field, never the password', async () => {
    const res = await create({
      description: 'Monthly',
      globalFilter: { siteIds: [site], startYear: 2024, endYear: 2025, statuses: ['APPROVED'] },
      widgetTheme: {
        mode: 'default',
        aggregateLines: { totalColor: '#000', totalLineStyle: 'solid', totalStrokeWidth: 2 },
      },
      password: 'a long secret',
      publicAccessEmails: ['Ada@Example.com'],
      tags: ['energy'],
      order: 3,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Energy',
      description: 'Monthly',
      organizationId: tenant.organizationId,
      isPublic: false,
      publicCanFilterSites: false,
      order: 3,
      globalFilter: { siteIds: [site], startYear: 2024, endYear: 2025, statuses: ['APPROVED'] },
      widgetTheme: {
        mode: 'default',
        aggregateLines: { totalColor: '#000', totalLineStyle: 'solid', totalStrokeWidth: 2 },
      },
      tags: ['energy'],
      hasPassword: true,
      requiresEmail: true,
      publicAccessEmails: ['ada@example.com'],
      publicAccessDomains: [],
      organizationDefaultStatuses: ['COMPLETED', 'APPROVED'],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const stored = await t.database.system((tx) =>
      tx
        .selectFrom('dashboards')
        .select('password_hash')
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow(),
    );
    expect(stored.password_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(res.body)).not.toContain('argon2');
  });

  it('lists the organization’s dashboards for every member, marking public ones; not another tenant’s', async () => {
    const pub = await create({ name: 'Public one', isPublic: true, globalFilter: { siteIds: [site] } });
    expect(pub.status, JSON.stringify(pub.body)).toBe(200);
    const res = await api(t, 'GET', '/dashboards', { token: tenant.viewer.token });
    expect(res.status).toBe(200);
    expect(res.body.find((d: { id: string }) => d.id === pub.body.id)).toMatchObject({ isPublic: true });
    const theirs = await api(t, 'GET', '/dashboards', { token: stranger.viewer.token });
    expect(theirs.body).toEqual([]);
    const get = await api(t, 'GET', `/dashboards/${pub.body.id}`, { token: stranger.owner.token });
    expect(get.status).toBe(404);
  });

  it('updates: name minLength 1, description null clears, password null removes protection', async () => {
    const { body } = await create({ description: 'x', password: 'secret-secret' });
    expect((await put(body.id, { name: '' })).status).toBe(400);
    const res = await put(body.id, { description: null, password: null, tags: ['a', 'b'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Energy',
      description: null,
      hasPassword: false,
      tags: ['a', 'b'],
    });
  });

  it('refuses malformed e-mails and domains, naming the field', async () => {
    const { body } = await create({});
    const email = await put(body.id, { publicAccessEmails: ['not-an-email'] });
    expect(email.status).toBe(400);
    expect(email.body.issues[0].path).toBe('publicAccessEmails.0');
    for (const domain of ['-bad.com', 'Example.COM', 'nodot', 'a..com', 'x.c']) {
      const res = await put(body.id, { publicAccessDomains: [domain] });
      expect(res.status, domain).toBe(400);
      expect(res.body.issues[0].path).toBe('publicAccessDomains.0');
    }
    const ok = await put(body.id, { publicAccessDomains: ['example.com', 'team.example.co.uk'] });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      requiresEmail: true,
      publicAccessDomains: ['example.com', 'team.example.co.uk'],
    });
  });

  it('validates the global filter: statuses, years, order of years and days, real days, sites of the organization', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ statuses: ['DRAFT'] }, 'globalFilter.statuses.0'],
      [{ startYear: 1899 }, 'globalFilter.startYear'],
      [{ endYear: 2201 }, 'globalFilter.endYear'],
      [{ startYear: 2026, endYear: 2025 }, 'globalFilter.endYear'],
      [{ startDate: '2025-02-30' }, 'globalFilter.startDate'],
      [{ startDate: '2025/01/01' }, 'globalFilter.startDate'],
      [{ startDate: '2025-03-01', endDate: '2025-02-01' }, 'globalFilter.endDate'],
      [{ siteIds: ['nope'] }, 'globalFilter.siteIds.0'],
      [{ siteIds: [site, await createSite(t, stranger.organizationId)] }, 'globalFilter.siteIds.1'],
      [{ unknown: 1 }, 'globalFilter.unknown'],
    ];
    for (const [globalFilter, path] of bad) {
      const res = await create({ globalFilter });
      expect(res.status, JSON.stringify(globalFilter)).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    const { body } = await create({});
    const res = await put(body.id, { globalFilter: { startYear: 2026, endYear: 2025 } });
    expect(res.status).toBe(400);
  });

  it('refuses wrong types and unknown fields, never coercing', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ name: undefined }, 'name'],
      [{ isPublic: 'yes' }, 'isPublic'],
      [{ order: '3' }, 'order'],
      [{ order: 1.5 }, 'order'],
      [{ tags: [''] }, 'tags.0'],
      [{ password: 'short' }, 'password'],
      [{ widgetTheme: { mode: 'dark', colour: 'red' } }, 'widgetTheme.colour'],
      [
        { widgetTheme: { aggregateLines: { totalStrokeWidth: 'wide' } } },
        'widgetTheme.aggregateLines.totalStrokeWidth',
      ],
      [{ hasPassword: true }, 'hasPassword'],
    ];
    for (const [body, path] of bad) {
      const res = await api(t, 'POST', '/dashboards', {
        token: tenant.manager.token,
        body: { name: 'Energy', ...body },
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
  });

  it('needs MANAGER to write (VIEWER and COLLECTOR 403), VIEWER to read', async () => {
    for (const token of [tenant.viewer.token, tenant.collector.token]) {
      expect((await create({}, token)).status).toBe(403);
    }
    const { body } = await create({});
    expect((await put(body.id, { name: 'x' }, tenant.viewer.token)).status).toBe(403);
    expect((await api(t, 'DELETE', `/dashboards/${body.id}`, { token: tenant.viewer.token })).status).toBe(
      403,
    );
    expect((await api(t, 'GET', `/dashboards/${body.id}`, { token: tenant.viewer.token })).status).toBe(200);
  });

  it('lets a manager limited to some sites publish only a dashboard filtered to their sites', async () => {
    expect((await create({ isPublic: true })).status).toBe(403);
    expect((await create({ isPublic: true, globalFilter: { siteIds: [otherSite] } })).status).toBe(403);
    expect((await create({ isPublic: true, globalFilter: { siteIds: [site] } })).status).toBe(200);
    expect((await create({ isPublic: true }, tenant.owner.token)).status).toBe(200);
  });

  it('another tenant’s dashboard is 404 on every route', async () => {
    const { body } = await create({});
    const token = stranger.owner.token;
    expect((await api(t, 'GET', `/dashboards/${body.id}`, { token })).status).toBe(404);
    expect((await api(t, 'GET', `/dashboards/${body.id}/data`, { token })).status).toBe(404);
    expect((await put(body.id, { name: 'x' }, token)).status).toBe(404);
    expect((await api(t, 'DELETE', `/dashboards/${body.id}`, { token })).status).toBe(404);
    const widget = { type: 'VALUE', title: 'x', indicatorIds: [indicatorId] };
    expect((await api(t, 'POST', `/dashboards/${body.id}/widgets`, { token, body: widget })).status).toBe(
      404,
    );
    expect((await api(t, 'GET', '/dashboards/not-a-uuid', { token })).status).toBe(404);
  });
});

describe('widgets', () => {
  const addWidget = (dashboardId: string, body: Record<string, unknown>) =>
    api(t, 'POST', `/dashboards/${dashboardId}/widgets`, {
      token: tenant.manager.token,
      body: { type: 'LINE', title: 'Electricity', indicatorIds: [indicatorId], ...body },
    });

  it('adds, changes and removes widgets; the dashboard lists them in order', async () => {
    const { body: dashboard } = await create({});
    const first = await addWidget(dashboard.id, {
      config: { period: 'MONTHLY', showTarget: true, decimals: 1 },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({
      dashboardId: dashboard.id,
      type: 'LINE',
      title: 'Electricity',
      indicatorIds: [indicatorId],
      config: { period: 'MONTHLY', showTarget: true, decimals: 1 },
      position: 0,
      dashboardIsPublic: false,
      notice: null,
    });
    const second = await addWidget(dashboard.id, { type: 'VALUE' });
    expect(second.body.position).toBe(1);
    const changed = await api(t, 'PUT', `/dashboards/${dashboard.id}/widgets/${first.body.id}`, {
      token: tenant.manager.token,
      body: { title: 'Per month', type: 'BAR' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ title: 'Per month', type: 'BAR', config: { period: 'MONTHLY' } });
    const got = await api(t, 'GET', `/dashboards/${dashboard.id}`, { token: tenant.viewer.token });
    expect(got.body.widgets.map((w: { id: string }) => w.id)).toEqual([first.body.id, second.body.id]);
    const removed = await api(t, 'DELETE', `/dashboards/${dashboard.id}/widgets/${second.body.id}`, {
      token: tenant.manager.token,
    });
    expect(removed.status).toBe(200);
    expect(removed.body.id).toBe(second.body.id);
    const again = await api(t, 'DELETE', `/dashboards/${dashboard.id}/widgets/${second.body.id}`, {
      token: tenant.manager.token,
    });
    expect(again.status).toBe(404);
  });

  it('refuses bad widgets: type, empty or foreign indicators, config values', async () => {
    const { body: dashboard } = await create({});
    const foreign = await api(t, 'POST', '/indicators', {
      token: stranger.owner.token,
      body: { name: 'Theirs', expressionParts: [{ type: 'number', value: '1' }] },
    });
    const bad: [Record<string, unknown>, string][] = [
      [{ type: 'PIE' }, 'type'],
      [{ title: '' }, 'title'],
      [{ indicatorIds: [] }, 'indicatorIds'],
      [{ indicatorIds: [foreign.body.id] }, 'indicatorIds.0'],
      [{ indicatorIds: [indicatorId, 'nope'] }, 'indicatorIds.1'],
      [{ config: { period: 'WEEKLY' } }, 'config.period'],
      [{ config: { sites: 'EACH' } }, 'config.sites'],
      [{ config: { decimals: 11 } }, 'config.decimals'],
    ];
    for (const [body, path] of bad) {
      const res = await addWidget(dashboard.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
  });

  it('says so when the widget goes on a public dashboard', async () => {
    const { body: dashboard } = await create({ isPublic: true, globalFilter: { siteIds: [site] } });
    const res = await addWidget(dashboard.id, {});
    expect(res.body).toMatchObject({ dashboardIsPublic: true, notice: expect.stringContaining('public') });
  });

  it('lists the widgets in the indicator’s widgetUsage, and the indicator cannot be deleted while used', async () => {
    const { body: dashboard } = await create({ name: 'Usage board' });
    const widget = await addWidget(dashboard.id, { title: 'Kept' });
    const res = await api(t, 'GET', `/indicators/${indicatorId}`, { token: tenant.viewer.token });
    expect(res.body.widgetUsage).toContainEqual(
      expect.objectContaining({
        widgetId: widget.body.id,
        widgetName: 'Kept',
        dashboardId: dashboard.id,
        dashboardName: 'Usage board',
        isDirect: true,
      }),
    );
    const del = await api(t, 'DELETE', `/indicators/${indicatorId}`, { token: tenant.owner.token });
    expect(del.status).toBe(400);
  });

  it('deleting a dashboard answers the record and takes its widgets with it', async () => {
    const { body: dashboard } = await create({ name: 'Doomed' });
    const widget = await addWidget(dashboard.id, {});
    const res = await api(t, 'DELETE', `/dashboards/${dashboard.id}`, { token: tenant.manager.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: dashboard.id, name: 'Doomed' });
    expect((await api(t, 'GET', `/dashboards/${dashboard.id}`, { token: tenant.owner.token })).status).toBe(
      404,
    );
    const left = await t.database.system((tx) =>
      tx.selectFrom('dashboard_widgets').select('id').where('id', '=', widget.body.id).execute(),
    );
    expect(left).toEqual([]);
  });
});
