import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  addMember,
  createForm,
  createTenant,
  type Member,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
let tenant: Tenant;
let other: Tenant;
let admin: Member;

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

const validBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Fuel combustion',
  description: 'Stationary combustion of fuels',
  uiCode: 'return null',
  calcCode: [
    "const factor = inputs.fuel === 'diesel' ? 2.68 : 2.31;",
    'return { value: inputs.litres * factor, metadata: { factor } };',
  ].join('\n'),
  inputs: [
    { name: 'litres', type: 'number', required: true, example: '100' },
    {
      name: 'fuel',
      type: 'string',
      editor: {
        type: 'select',
        options: [
          { label: 'Diesel', value: 'diesel' },
          { label: 'Petrol', value: 'petrol' },
        ],
      },
    },
  ],
  metadataSchema: { type: 'object', properties: { factor: { type: 'number' } } },
  ...overrides,
});

const post = (body: unknown, token = tenant.manager.token) =>
  api(t, 'POST', '/activity-definitions', { token, body });
const put = (id: string, body: unknown, token = tenant.manager.token) =>
  api(t, 'PUT', `/activity-definitions/${id}`, { token, body });
const get = (id: string, token = tenant.viewer.token) =>
  api(t, 'GET', `/activity-definitions/${id}`, { token });
const del = (id: string, token = tenant.manager.token) =>
  api(t, 'DELETE', `/activity-definitions/${id}`, { token });

beforeAll(async () => {
  tenant = await createTenant(t);
  other = await createTenant(t);
  admin = await addMember(t, tenant.organizationId, 'MANAGER', 'admin@platform.test');
});

afterAll(() => shutdownSandbox());

describe('POST /activity-definitions', () => {
  it('creates a definition with a key from the name and the inputs’ defaults filled in', async () => {
    const res = await post(validBody({ name: 'Électricité du réseau' }));

    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'calcCode',
        'createdAt',
        'description',
        'id',
        'inputs',
        'isCommon',
        'key',
        'metadataSchema',
        'name',
        'organizationId',
        'uiCode',
        'unitId',
        'unitSymbol',
        'updatedAt',
      ].sort(),
    );
    expect(res.body).toMatchObject({
      key: 'electricite-du-reseau',
      name: 'Électricité du réseau',
      description: 'Stationary combustion of fuels',
      organizationId: tenant.organizationId,
      isCommon: false,
      unitId: null,
      unitSymbol: null,
      metadataSchema: validBody().metadataSchema,
      calcCode: validBody().calcCode,
    });
    expect(res.body.inputs).toEqual([
      { name: 'litres', type: 'number', required: true, exportName: 'litres', example: '100' },
      {
        name: 'fuel',
        type: 'string',
        required: false,
        exportName: 'fuel',
        editor: validBody().inputs[1]!.editor,
      },
    ]);
    expect(Date.parse(res.body.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect((await get(res.body.id)).body).toEqual(res.body);
  });

  it('takes an explicit key, and refuses one already used in the organization (400 naming key)', async () => {
    const first = await post(validBody({ key: 'boilers' }));
    expect(first.body.key).toBe('boilers');

    const again = await post(validBody({ key: 'boilers' }));
    expect(again.status).toBe(400);
    expect(again.body.issues).toEqual([{ path: 'key', message: expect.stringContaining('boilers') }]);

    const elsewhere = await post(validBody({ key: 'boilers' }), other.manager.token);
    expect(elsewhere.status).toBe(200);
  });

  it('suffixes a derived key that is taken', async () => {
    const keys = [];
    for (let i = 0; i < 3; i++) keys.push((await post(validBody({ name: 'Company cars' }))).body.key);
    expect(keys).toEqual(['company-cars', 'company-cars-2', 'company-cars-3']);
  });

  it('checks calcCode syntax on save, naming the line', async () => {
    const res = await post(validBody({ calcCode: 'const a = 1;\nreturn a +;' }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.issues).toHaveLength(1);
    expect(res.body.issues[0].path).toBe('calcCode');
    expect(res.body.issues[0].message).toMatch(/^calcCode: SyntaxError: .*\(line 2, column \d+\)$/);
  });

  it('refuses calcCode that is not one function body', async () => {
    const res = await post(validBody({ calcCode: 'return 1 }, globalThis.x = 1, function () {' }));
    expect(res.status).toBe(400);
    expect(res.body.issues[0]).toMatchObject({ path: 'calcCode' });
  });

  it('refuses a metadataSchema that is not a valid JSON Schema', async () => {
    const res = await post(
      validBody({ metadataSchema: { type: 'object', properties: { a: { type: 'decimal' } } } }),
    );
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([
      { path: 'metadataSchema', message: expect.stringContaining('JSON Schema') },
    ]);
  });

  it('refuses duplicate input names and select options that do not fit the input’s type', async () => {
    const res = await post(
      validBody({
        inputs: [
          { name: 'amount', type: 'number' },
          { name: 'amount', type: 'number', exportName: 'Amount 2' },
          {
            name: 'level',
            type: 'number',
            editor: { type: 'select', options: [{ label: 'Low', value: 'low' }] },
          },
        ],
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual([
      'inputs.1.name',
      'inputs.2.editor.options.0.value',
    ]);
  });

  it.each([
    ['no inputs', { inputs: undefined }],
    ['an unknown input type', { inputs: [{ name: 'a', type: 'integer' }] }],
    ['an input name that is not an identifier', { inputs: [{ name: 'fuel type', type: 'string' }] }],
    ['calcCode sent as a number', { calcCode: 5 }],
    ['an empty calcCode', { calcCode: '' }],
    ['a key that is not a slug', { key: 'Fuel Type' }],
    ['an unknown property', { colour: 'red' }],
  ])('400 for %s', async (_label, overrides) => {
    const res = await post(validBody(overrides));
    expect(res.status).toBe(400);
    expect(res.body.issues.length).toBeGreaterThan(0);
  });

  it('403 for collectors and viewers', async () => {
    for (const member of [tenant.collector, tenant.viewer]) {
      expect((await post(validBody(), member.token)).status).toBe(403);
    }
  });

  it('isCommon: true needs a platform admin', async () => {
    const res = await post(validBody({ isCommon: true }));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');

    const shared = await post(validBody({ isCommon: true }), admin.token);
    expect(shared.status).toBe(200);
    expect(shared.body.isCommon).toBe(true);
  });
});

describe('GET /activity-definitions', () => {
  it('lists the organization’s definitions by name, for any member', async () => {
    const res = await api(t, 'GET', '/activity-definitions', { token: tenant.viewer.token });
    expect(res.status).toBe(200);
    const names = res.body.map((d: { name: string }) => d.name);
    expect(names).toEqual([...names].sort());
    expect(
      res.body.every(
        (d: { organizationId: string; isCommon: boolean }) =>
          d.organizationId === tenant.organizationId || d.isCommon,
      ),
    ).toBe(true);
  });
});

describe('GET /activity-definitions/{id}', () => {
  it('404 for unknown and malformed ids', async () => {
    for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
      const res = await get(id);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });
});

describe('PUT /activity-definitions/{id}', () => {
  it('replaces the editable fields and the whole input list; the key stays', async () => {
    const created = (await post(validBody({ name: 'Refrigerants' }))).body;
    const res = await put(created.id, {
      name: 'Refrigerant leaks',
      uiCode: '',
      calcCode: 'return inputs.kg * 1430',
      inputs: [{ name: 'kg', type: 'number', required: true }],
    });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      key: created.key,
      name: 'Refrigerant leaks',
      description: null,
      metadataSchema: null,
      calcCode: 'return inputs.kg * 1430',
      inputs: [{ name: 'kg', type: 'number', required: true, exportName: 'kg' }],
      createdAt: created.createdAt,
    });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    expect((await get(created.id)).body).toEqual(res.body);
  });

  it('checks the new content (400) and leaves the stored definition unchanged', async () => {
    const created = (await post(validBody({ name: 'Waste' }))).body;
    const res = await put(created.id, validBody({ calcCode: 'return (' }));
    expect(res.status).toBe(400);
    expect(res.body.issues[0].path).toBe('calcCode');
    expect((await get(created.id)).body).toEqual(created);
  });

  it('404 for unknown and malformed ids', async () => {
    expect((await put(UNKNOWN_ID, validBody())).status).toBe(404);
    expect((await put('nope', validBody())).status).toBe(404);
  });

  it('403 below MANAGER', async () => {
    const created = (await post(validBody({ name: 'Water' }))).body;
    expect((await put(created.id, validBody(), tenant.collector.token)).status).toBe(403);
  });
});

describe('DELETE /activity-definitions/{id}', () => {
  it('deletes and answers with the deleted definition', async () => {
    const created = (await post(validBody({ name: 'Paper' }))).body;
    const res = await del(created.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
    expect((await get(created.id)).status).toBe(404);
    expect((await del(created.id)).status).toBe(404);
  });

  it('refuses (400) while a form element refers to the definition', async () => {
    const created = (await post(validBody({ name: 'Flights' }))).body;
    await createForm(t, tenant, {
      elements: [{ label: 'Flights', type: 'ACTIVITY', activityDefinitionId: created.id }],
    });
    const res = await del(created.id);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect((await get(created.id)).status).toBe(200);
  });

  it('404 for unknown ids and 403 below MANAGER', async () => {
    expect((await del(UNKNOWN_ID)).status).toBe(404);
    const created = (await post(validBody({ name: 'Hotels' }))).body;
    expect((await del(created.id, tenant.viewer.token)).status).toBe(403);
  });
});
