import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  addMember,
  assignSites,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
const units: Record<string, string> = {};

beforeAll(async () => {
  tenant = await createTenant(t);
  const rows = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  for (const r of rows) units[r.symbol] = r.id;
});

const history = async (valueId: string, token = tenant.viewer.token) => {
  const res = await api(t, 'GET', `/form-submissions/values/${valueId}/history`, { token });
  expect(res.status).toBe(200);
  return res.body as { action: string; before: any; after: any; comment: string | null; userId: string }[];
};
const review = (valueId: string, body: unknown, token = tenant.manager.token) =>
  api(t, 'POST', `/form-submissions/values/${valueId}/review`, { token, body });

describe('the story: monthly energy form on two sites', () => {
  it('submits, updates, deletes a timestamp record, approves, and every change is in the history', async () => {
    // Arrange: a monthly form with a NUMBER in kWh, a SELECT and a TIMESTAMP, on two sites for 2025.
    const [north, south] = [
      await createSite(t, tenant.organizationId),
      await createSite(t, tenant.organizationId),
    ];
    await assignSites(t, tenant.organizationId, tenant.collector.userId, [north, south]);
    await assignSites(t, tenant.organizationId, tenant.manager.userId, [north, south]);
    await assignSites(t, tenant.organizationId, tenant.viewer.userId, [north, south]);
    const form = await createForm(t, tenant, {
      periodType: 'MONTHLY',
      elements: [
        { key: 'electricity', label: 'Electricity', type: 'NUMBER', unitId: units['kWh'] },
        {
          key: 'supplier',
          label: 'Supplier',
          type: 'SELECT',
          options: [
            { label: 'Grid', value: 'grid' },
            { label: 'Solar', value: 'solar' },
          ],
        },
        { key: 'meter', label: 'Meter reading', type: 'TIMESTAMP' },
      ],
    });
    await activateForm(t, tenant, form.id, [north, south], [2025]);
    const collector = tenant.collector.token;
    const send = (siteId: string, values: unknown[]) =>
      api(t, 'POST', '/form-submissions', {
        token: collector,
        body: { formId: form.id, siteId, year: 2025, values },
      });

    // Act 1: submit on both sites (electricity entered in MWh).
    const northFirst = await send(north, [
      { elementKey: 'electricity', periodUnit: 1, value: 1.2, selectedUnitId: units['MWh'] },
      { elementKey: 'supplier', periodUnit: 1, value: 'grid' },
      { elementKey: 'meter', timestamp: '2025-01-15T08:30:00Z', value: 1000 },
      { elementKey: 'meter', timestamp: '2025-02-15T08:30:00Z', value: 1100 },
    ]);
    expect(northFirst.status).toBe(200);
    const southFirst = await send(south, [{ elementKey: 'electricity', periodUnit: 1, value: 800 }]);
    expect(southFirst.status).toBe(200);
    expect(southFirst.body.id).not.toBe(northFirst.body.id);
    const [electricity, supplier, january, february] = northFirst.body.values;
    expect(electricity).toMatchObject({ value: 1200, originalValue: 1.2, selectedUnitId: units['MWh'] });
    expect(january).toMatchObject({ periodUnit: 1, value: 1000 });
    expect(february).toMatchObject({ periodUnit: 2, value: 1100 });

    // Act 2: update electricity and the January reading (same timestamp: same record).
    const update = await send(north, [
      { elementKey: 'electricity', periodUnit: 1, value: 1300 },
      { elementKey: 'meter', timestamp: '2025-01-15T08:30:00.000Z', value: 1010 },
    ]);
    expect(update.body.values[0]).toMatchObject({
      formElementSubmissionId: electricity.formElementSubmissionId,
      value: 1300,
      originalValue: null,
    });
    expect(update.body.values[1].formElementSubmissionId).toBe(january.formElementSubmissionId);

    // Act 3: delete the February reading.
    const removal = await send(north, [
      { elementKey: 'meter', timestamp: '2025-02-15T08:30:00Z', value: null },
    ]);
    expect(removal.body.values[0]).toMatchObject({
      formElementSubmissionId: february.formElementSubmissionId,
      value: null,
      deletedAt: expect.any(String),
    });

    // Act 4: approve the supplier value.
    const approved = await review(supplier.formElementSubmissionId, {
      status: 'APPROVED',
      comment: 'checked invoice',
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      status: 'APPROVED',
      value: 'grid',
      userId: tenant.collector.userId,
    });

    // Assert: the current state, and each change in the history.
    const current = await api(t, 'GET', `/form-submissions/${northFirst.body.id}`, {
      token: tenant.viewer.token,
    });
    expect(current.body.values.map((v: any) => [v.elementKey, v.periodUnit, v.value, v.status])).toEqual([
      ['electricity', 1, 1300, 'COMPLETED'],
      ['supplier', 1, 'grid', 'APPROVED'],
      ['meter', 1, 1010, 'COMPLETED'],
    ]);
    expect(await history(electricity.formElementSubmissionId)).toMatchObject([
      {
        action: 'CREATE',
        before: null,
        after: { value: 1200, originalValue: 1.2, selectedUnitId: units['MWh'] },
      },
      {
        action: 'UPDATE',
        before: { value: 1200 },
        after: { value: 1300, originalValue: null, selectedUnitId: null },
      },
    ]);
    expect(await history(january.formElementSubmissionId)).toMatchObject([
      { action: 'CREATE', after: { value: 1000 } },
      { action: 'UPDATE', before: { value: 1000 }, after: { value: 1010 } },
    ]);
    expect(await history(february.formElementSubmissionId)).toMatchObject([
      { action: 'CREATE', after: { value: 1100 } },
      { action: 'DELETE', before: { value: 1100, status: 'COMPLETED' }, after: null },
    ]);
    expect(await history(supplier.formElementSubmissionId)).toMatchObject([
      { action: 'CREATE', userId: tenant.collector.userId },
      {
        action: 'REVIEW',
        before: { status: 'COMPLETED' },
        after: { status: 'APPROVED', value: 'grid' },
        comment: 'checked invoice',
        userId: tenant.manager.userId,
      },
    ]);
  });
});

describe('review', () => {
  let form: Awaited<ReturnType<typeof createForm>>;
  let site: string;
  let valueId: string;
  const write = (value: unknown) =>
    api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId: site,
        year: 2026,
        values: [{ elementKey: 'amount', periodUnit: 1, value }],
      },
    });

  beforeAll(async () => {
    site = await createSite(t, tenant.organizationId);
    form = await createForm(t, tenant);
    await activateForm(t, tenant, form.id, [site], [2026]);
    valueId = (await write(10)).body.values[0].formElementSubmissionId;
  });

  it('a new value resets a review; the same value sent again keeps it', async () => {
    expect((await review(valueId, { status: 'REJECTED' }, tenant.owner.token)).body.status).toBe('REJECTED');
    expect((await write(10)).body.values[0].status).toBe('REJECTED');
    expect((await write(11)).body.values[0].status).toBe('COMPLETED');
    expect((await history(valueId, tenant.owner.token)).map((h) => h.action)).toEqual([
      'CREATE',
      'REVIEW',
      'UPDATE',
    ]);
  });

  it('is for managers (403), of live values on their sites (404 otherwise), with a valid status (400)', async () => {
    const outsider = await addMember(t, tenant.organizationId, 'MANAGER');
    expect((await review(valueId, { status: 'APPROVED' }, tenant.collector.token)).status).toBe(403);
    // A manager without the site does not see the value at all.
    expect((await review(valueId, { status: 'APPROVED' }, outsider.token)).status).toBe(404);
    for (const body of [{ status: 'COMPLETED' }, {}, { status: 'APPROVED', extra: 1 }]) {
      expect((await review(valueId, body, tenant.owner.token)).status).toBe(400);
    }
    const other = await createTenant(t);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'x']) {
      expect((await review(id, { status: 'APPROVED' }, tenant.owner.token)).status).toBe(404);
      expect((await review(id, { status: 'APPROVED' }, other.owner.token)).status).toBe(404);
    }
    expect((await review(valueId, { status: 'APPROVED' }, other.owner.token)).status).toBe(404);
    await write(null);
    expect((await review(valueId, { status: 'APPROVED' }, tenant.owner.token)).status).toBe(404);
    // Deleted values keep their history.
    expect((await history(valueId, tenant.owner.token)).at(-1)!.action).toBe('DELETE');
  });

  it('history needs the site in the reader’s scope and a known value (404 otherwise)', async () => {
    const stranger = await addMember(t, tenant.organizationId, 'VIEWER');
    const res = await api(t, 'GET', `/form-submissions/values/${valueId}/history`, { token: stranger.token });
    expect(res.status).toBe(404);
    const missing = await api(t, 'GET', '/form-submissions/values/nope/history', {
      token: tenant.owner.token,
    });
    expect(missing.status).toBe(404);
  });
});

describe('reading submissions', () => {
  it('lists by filters within the scope, pages, and hides submissions of inactive form-sites', async () => {
    const [a, b] = [await createSite(t, tenant.organizationId), await createSite(t, tenant.organizationId)];
    const reader = await addMember(t, tenant.organizationId, 'VIEWER');
    await assignSites(t, tenant.organizationId, reader.userId, [a]);
    const form = await createForm(t, tenant, { periodType: 'YEARLY' });
    await activateForm(t, tenant, form.id, [a, b], [2023, 2024]);
    const ids: Record<string, string> = {};
    for (const [siteId, year] of [
      [a, 2023],
      [a, 2024],
      [b, 2024],
    ] as const) {
      const res = await api(t, 'POST', '/form-submissions', {
        token: tenant.owner.token,
        body: {
          formId: form.id,
          siteId,
          year,
          values: [{ elementKey: 'amount', periodUnit: 1, value: year }],
        },
      });
      ids[`${siteId}|${year}`] = res.body.id;
    }
    const listed = async (query: string, token = tenant.owner.token) => {
      const res = await api(t, 'GET', `/form-submissions?formId=${form.id}&${query}`, { token });
      expect(res.status).toBe(200);
      return res.body;
    };
    expect((await listed('')).pagination).toEqual({ total: 3, limit: 100, offset: 0, hasMore: false });
    expect((await listed('year=2024')).items.map((s: any) => s.id).sort()).toEqual(
      [ids[`${a}|2024`], ids[`${b}|2024`]].sort(),
    );
    const page = await listed('limit=2&offset=0');
    expect(page.items).toHaveLength(2);
    expect(page.pagination.hasMore).toBe(true);
    expect((await listed(`siteId=${b}`)).items[0].values[0].value).toBe(2024);
    expect((await listed('', reader.token)).items.map((s: any) => s.siteId)).toEqual([a, a]);

    // Deactivating hides the submission (list and id); re-activating shows the same data again.
    await activateForm(t, tenant, form.id, [a], [2024]);
    const hiddenId = ids[`${b}|2024`]!;
    expect((await api(t, 'GET', `/form-submissions/${hiddenId}`, { token: tenant.owner.token })).status).toBe(
      404,
    );
    expect((await listed('')).pagination.total).toBe(2);
    await activateForm(t, tenant, form.id, [a, b], [2024]);
    const back = await api(t, 'GET', `/form-submissions/${hiddenId}`, { token: tenant.owner.token });
    expect(back.status).toBe(200);
    expect(back.body.values[0].value).toBe(2024);

    // Out of the reader's scope, unknown, malformed, another tenant's: all 404.
    expect((await api(t, 'GET', `/form-submissions/${hiddenId}`, { token: reader.token })).status).toBe(404);
    const other = await createTenant(t);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'x', hiddenId]) {
      expect((await api(t, 'GET', `/form-submissions/${id}`, { token: other.owner.token })).status).toBe(404);
    }
    expect((await api(t, 'GET', '/form-submissions?limit=0', { token: tenant.owner.token })).status).toBe(
      400,
    );
    expect((await api(t, 'GET', '/form-submissions')).status).toBe(401);
  });
});

describe('the OpenAPI document of GET /form-submissions', () => {
  it('declares limit and offset optional, with their defaults', async () => {
    type Param = { name: string; in: string; required?: boolean; schema: Record<string, unknown> };
    const doc = t.app.swagger() as unknown as { paths: Record<string, { get: { parameters: Param[] } }> };
    const params = doc.paths['/api/v1/form-submissions']!.get.parameters;
    const param = (name: string) => params.find((p) => p.name === name && p.in === 'query');
    expect(param('limit')).toMatchObject({ schema: { default: 100, minimum: 1, maximum: 1000 } });
    expect(param('offset')).toMatchObject({ schema: { default: 0, minimum: 0 } });
    expect(param('limit')?.required).not.toBe(true);
    expect(param('offset')?.required).not.toBe(true);
    // Left out, they take their defaults.
    const res = await api(t, 'GET', '/form-submissions', { token: tenant.viewer.token });
    expect(res.status).toBe(200);
    expect(res.body.pagination).toMatchObject({ limit: 100, offset: 0 });
  });
});
