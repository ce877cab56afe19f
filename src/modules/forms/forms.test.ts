import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, type TestContext, useTestApp } from '../../../test/helpers/app.ts';
import { createForm, createTenant, type Tenant } from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;

let kwh = '';

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

/** Stores an activity definition directly (the definitions module has its own tests). */
async function definition(ctx: TestContext, organizationId: string, key: string, isCommon = false) {
  const result = await ctx.database.system((tx) =>
    sql<{ id: string }>`
      insert into activity_definitions (organization_id, key, name, ui_code, calc_code, inputs, is_common)
      values (${organizationId}, ${key}, ${key}, '', 'return 1', '[]'::jsonb, ${isCommon})
      returning id`.execute(tx),
  );
  return result.rows[0]!.id;
}

const post = (body: unknown, token = tenant.manager.token) => api(t, 'POST', '/forms', { token, body });
const put = (id: string, body: unknown, token = tenant.manager.token) =>
  api(t, 'PUT', `/forms/${id}`, { token, body });

beforeAll(async () => {
  tenant = await createTenant(t);
  kwh = await unitId('kWh');
});

describe('forms: create and read', () => {
  it('stores a form with every element type, answers it with elements by order, and any member reads it', async () => {
    const fuel = await definition(t, tenant.organizationId, 'fuel-use');
    const res = await post({
      name: 'Energy',
      description: 'Monthly energy',
      periodType: 'MONTHLY',
      metadata: { code: 'ENERGY' },
      elements: [
        { key: 'notes', label: 'Notes', type: 'TEXT', order: 9 },
        { key: 'kwh', label: 'Electricity', type: 'NUMBER', unitId: kwh, required: true, order: 1 },
        { key: 'kind', label: 'Kind', type: 'SELECT', options: [{ label: 'Grid', value: 'grid' }], order: 2 },
        { key: 'green', label: 'Green', type: 'BOOLEAN', order: 3 },
        { key: 'day', label: 'Day', type: 'DATE', order: 4 },
        { key: 'reading', label: 'Reading', type: 'TIMESTAMP', order: 5, metadata: { ext: 'R1' } },
        { key: 'invoice', label: 'Invoice', type: 'FILE', order: 6 },
        { label: 'Fuel', type: 'ACTIVITY', activityDefinitionId: fuel, order: 7 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Energy',
      description: 'Monthly energy',
      periodType: 'MONTHLY',
      metadata: { code: 'ENERGY' },
      organizationId: tenant.organizationId,
    });
    expect(res.body.elements.map((e: { key: string }) => e.key)).toEqual([
      'kwh',
      'kind',
      'green',
      'day',
      'reading',
      'invoice',
      'fuel-use',
      'notes',
    ]);
    expect(res.body.elements[0]).toEqual({
      id: expect.any(String),
      key: 'kwh',
      label: 'Electricity',
      labels: {},
      helpTexts: {},
      type: 'NUMBER',
      required: true,
      unitId: kwh,
      options: null,
      activityDefinitionId: null,
      aggregation: 'SUM',
      minValue: null,
      maxValue: null,
      integer: false,
      warnChangeFactor: null,
      metadata: {},
      order: 1,
    });
    expect(res.body.elements[6]).toMatchObject({
      type: 'ACTIVITY',
      activityDefinitionId: fuel,
      key: 'fuel-use',
    });

    const got = await api(t, 'GET', `/forms/${res.body.id}`, { token: tenant.viewer.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    const list = await api(t, 'GET', '/forms', { token: tenant.viewer.token });
    expect(list.status).toBe(200);
    expect(list.body.find((f: { id: string }) => f.id === res.body.id)).toEqual(res.body);
  });

  it('orders elements by their place in the list when no order is given', async () => {
    const res = await post({
      name: 'Plain',
      periodType: 'YEARLY',
      elements: [
        { key: 'b', label: 'B', type: 'TEXT' },
        { key: 'a', label: 'A', type: 'TEXT' },
      ],
    });
    expect(res.body.elements.map((e: { key: string; order: number }) => [e.key, e.order])).toEqual([
      ['b', 0],
      ['a', 1],
    ]);
    expect(res.body.description).toBeNull();
    expect(res.body.metadata).toEqual({});
  });

  it('accepts common definitions of other organizations, not their private ones', async () => {
    const other = await createTenant(t);
    const common = await definition(t, other.organizationId, 'common-def', true);
    const own = await definition(t, other.organizationId, 'private-def');
    const ok = await post({
      name: 'Common',
      periodType: 'YEARLY',
      elements: [{ label: 'C', type: 'ACTIVITY', activityDefinitionId: common }],
    });
    expect(ok.status).toBe(200);
    expect(ok.body.elements[0].key).toBe('common-def');
    const refused = await post({
      name: 'Private',
      periodType: 'YEARLY',
      elements: [{ label: 'P', type: 'ACTIVITY', activityDefinitionId: own }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.issues).toEqual([
      expect.objectContaining({ path: 'elements.0.activityDefinitionId' }),
    ]);
  });

  it('refuses invalid element lists with an issue naming each field (400)', async () => {
    const cases: [unknown[], string][] = [
      [
        [
          { key: 'a', label: 'A', type: 'TEXT' },
          { key: 'a', label: 'B', type: 'NUMBER' },
        ],
        'elements.1.key',
      ],
      [[{ key: 's', label: 'S', type: 'SELECT' }], 'elements.0.options'],
      [[{ key: 't', label: 'T', type: 'TEXT', options: [{ label: 'x', value: 'x' }] }], 'elements.0.options'],
      [
        [
          {
            key: 's',
            label: 'S',
            type: 'SELECT',
            options: [
              { label: 'x', value: 'x' },
              { label: 'y', value: 'x' },
            ],
          },
        ],
        'elements.0.options.1.value',
      ],
      [[{ key: 't', label: 'T', type: 'TEXT', unitId: kwh }], 'elements.0.unitId'],
      [
        [{ key: 'n', label: 'N', type: 'NUMBER', unitId: '00000000-0000-4000-8000-000000000000' }],
        'elements.0.unitId',
      ],
      [
        [
          { key: 'n', label: 'N', type: 'NUMBER' },
          { label: 'A', type: 'ACTIVITY' },
        ],
        'elements.1.activityDefinitionId',
      ],
      [[{ label: 'N', type: 'NUMBER' }], 'elements.0.key'],
      [
        [{ key: 'n', label: 'N', type: 'NUMBER', activityDefinitionId: kwh }],
        'elements.0.activityDefinitionId',
      ],
      [[{ key: 'n', label: 'N', type: 'PERCENT' }], 'elements.0.type'],
      [[{ key: 'has space', label: 'N', type: 'NUMBER' }], 'elements.0.key'],
      [[{ key: 'n', label: 'N', type: 'NUMBER', extra: 1 }], 'elements.0.extra'],
    ];
    for (const [elements, path] of cases) {
      const res = await post({ name: 'Bad', periodType: 'MONTHLY', elements });
      expect(res.status, path).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    const badPeriod = await post({ name: 'Bad', periodType: 'WEEKLY', elements: [] });
    expect(badPeriod.status).toBe(400);
    expect(badPeriod.body.issues[0].path).toBe('periodType');
  });

  it('is configured by managers and owners only (403), and needs a credential (401)', async () => {
    const body = { name: 'X', periodType: 'YEARLY', elements: [] };
    expect((await post(body, tenant.collector.token)).status).toBe(403);
    expect((await post(body, tenant.owner.token)).status).toBe(200);
    expect((await api(t, 'POST', '/forms', { body })).status).toBe(401);
    expect((await api(t, 'GET', '/forms')).status).toBe(401);
  });

  it('404 for unknown, malformed and other tenants’ form ids', async () => {
    const other = await createTenant(t);
    const theirs = await createForm(t, other);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', theirs.id]) {
      const res = await api(t, 'GET', `/forms/${id}`, { token: tenant.owner.token });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
      expect((await put(id, { name: 'x', periodType: 'YEARLY', elements: [] })).status).toBe(404);
      expect((await api(t, 'DELETE', `/forms/${id}`, { token: tenant.owner.token })).status).toBe(404);
    }
  });
});
