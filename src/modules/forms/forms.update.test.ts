import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  assignSites,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
let kwh = '';
let kg = '';

async function unitId(symbol: string): Promise<string> {
  const row = await t.database.system((tx) =>
    tx
      .selectFrom('units')
      .select('id')
      .where('symbol', '=', symbol)
      .where('organization_id', 'is', null)
      .executeTakeFirstOrThrow(),
  );
  return row.id;
}

const put = (id: string, body: unknown, token = tenant.manager.token) =>
  api(t, 'PUT', `/forms/${id}`, { token, body });

beforeAll(async () => {
  tenant = await createTenant(t);
  kwh = await unitId('kWh');
  kg = await unitId('kg');
});

describe('forms: update', () => {
  it('matches elements by id or key, adds new ones and soft-deletes the ones left out', async () => {
    const form = await createForm(t, tenant, {
      elements: [
        { key: 'a', label: 'A', type: 'NUMBER' },
        { key: 'b', label: 'B', type: 'TEXT' },
        { key: 'c', label: 'C', type: 'BOOLEAN' },
      ],
    });
    const [a, b, c] = form.elements;
    const res = await put(form.id, {
      name: 'Renamed',
      periodType: 'MONTHLY',
      elements: [
        { id: a!.id, key: 'a2', label: 'A renamed', type: 'NUMBER', unitId: kg },
        { key: 'b', label: 'B again', type: 'TEXT' },
        { key: 'd', label: 'D', type: 'DATE' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Renamed');
    expect(res.body.elements.map((e: { id: string; key: string }) => [e.id, e.key])).toEqual([
      [a!.id, 'a2'],
      [b!.id, 'b'],
      [expect.any(String), 'd'],
    ]);
    const deleted = await t.database.system((tx) =>
      tx.selectFrom('form_elements').select(['deleted_at']).where('id', '=', c!.id).executeTakeFirstOrThrow(),
    );
    expect(deleted.deleted_at).toBeInstanceOf(Date);

    // Naming a deleted element's id restores it; keys can be swapped in one request.
    const restored = await put(form.id, {
      name: 'Renamed',
      periodType: 'MONTHLY',
      elements: [
        { id: a!.id, key: 'b', label: 'A', type: 'NUMBER' },
        { id: b!.id, key: 'a2', label: 'B', type: 'TEXT' },
        { id: c!.id, key: 'c', label: 'C', type: 'BOOLEAN' },
      ],
    });
    expect(restored.status).toBe(200);
    expect(restored.body.elements.map((e: { id: string; key: string }) => [e.id, e.key])).toEqual([
      [a!.id, 'b'],
      [b!.id, 'a2'],
      [c!.id, 'c'],
    ]);
  });

  it('refuses ids that are not elements of the form, and one element listed twice (400)', async () => {
    const form = await createForm(t, tenant);
    const other = await createForm(t, tenant);
    const foreign = await put(form.id, {
      name: 'x',
      periodType: 'MONTHLY',
      elements: [{ id: other.elements[0]!.id, key: 'x', label: 'X', type: 'NUMBER' }],
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.issues[0].path).toBe('elements.0.id');
    const twice = await put(form.id, {
      name: 'x',
      periodType: 'MONTHLY',
      elements: [
        { id: form.elements[0]!.id, key: 'x', label: 'X', type: 'NUMBER' },
        { id: form.elements[0]!.id, key: 'y', label: 'Y', type: 'NUMBER' },
      ],
    });
    expect(twice.status).toBe(400);
    expect(twice.body.issues[0].path).toBe('elements.1.id');
  });

  it('keeps the type and unit of elements with values and the period type of forms with values (400)', async () => {
    const site = await createSite(t, tenant.organizationId);
    // Forms are organization-wide: the manager who changes them manages every site (decision 166).
    await assignSites(t, tenant.organizationId, tenant.manager.userId, [site]);
    const form = await createForm(t, tenant, {
      periodType: 'MONTHLY',
      elements: [
        { key: 'n', label: 'N', type: 'NUMBER', unitId: kwh },
        { key: 'empty', label: 'E', type: 'NUMBER' },
      ],
    });
    await activateForm(t, tenant, form.id, [site], [2025]);
    const submitted = await api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId: site,
        year: 2025,
        values: [{ elementKey: 'n', periodUnit: 1, value: 5 }],
      },
    });
    expect(submitted.status).toBe(200);
    const base = { name: 'F', periodType: 'MONTHLY' };
    const typeChange = await put(form.id, {
      ...base,
      elements: [
        { key: 'n', label: 'N', type: 'TEXT' },
        { key: 'empty', label: 'E', type: 'TEXT' },
      ],
    });
    expect(typeChange.status).toBe(400);
    expect(typeChange.body.issues.map((i: { path: string }) => i.path)).toEqual(['elements.0.type']);
    const unitChange = await put(form.id, {
      ...base,
      elements: [{ key: 'n', label: 'N', type: 'NUMBER', unitId: kg }],
    });
    expect(unitChange.status).toBe(400);
    expect(unitChange.body.issues[0].path).toBe('elements.0.unitId');
    const periodChange = await put(form.id, { ...base, periodType: 'YEARLY', elements: [] });
    expect(periodChange.status).toBe(400);
    expect(periodChange.body.issues[0].path).toBe('periodType');
    // The element without values may change type; leaving out the one with values keeps its values.
    const ok = await put(form.id, { ...base, elements: [{ key: 'empty', label: 'E', type: 'TEXT' }] });
    expect(ok.status).toBe(200);
    const kept = await t.database.system((tx) =>
      tx
        .selectFrom('form_element_submissions')
        .select(['value', 'deleted_at'])
        .where('element_id', '=', form.elements[0]!.id)
        .execute(),
    );
    expect(kept).toEqual([{ value: 5, deleted_at: null }]);
  });
});

describe('forms: delete', () => {
  it('soft-deletes: the form leaves the API, its rows stay', async () => {
    const form = await createForm(t, tenant);
    expect((await api(t, 'DELETE', `/forms/${form.id}`, { token: tenant.collector.token })).status).toBe(403);
    const res = await api(t, 'DELETE', `/forms/${form.id}`, { token: tenant.manager.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await api(t, 'GET', `/forms/${form.id}`, { token: tenant.owner.token })).status).toBe(404);
    const list = await api(t, 'GET', '/forms', { token: tenant.owner.token });
    expect(list.body.map((f: { id: string }) => f.id)).not.toContain(form.id);
    const row = await t.database.system((tx) =>
      tx.selectFrom('forms').select('deleted_at').where('id', '=', form.id).executeTakeFirstOrThrow(),
    );
    expect(row.deleted_at).toBeInstanceOf(Date);
    expect((await api(t, 'DELETE', `/forms/${form.id}`, { token: tenant.manager.token })).status).toBe(404);
  });
});
