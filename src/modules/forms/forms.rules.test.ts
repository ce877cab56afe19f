import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createTenant, type Tenant } from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;

const post = (elements: unknown[]) =>
  api(t, 'POST', '/forms', {
    token: tenant.manager.token,
    body: { name: 'Rules', periodType: 'MONTHLY', elements },
  });

beforeAll(async () => {
  tenant = await createTenant(t);
});

describe('forms: plausibility rules of NUMBER elements', () => {
  it('stores minValue, maxValue, integer and warnChangeFactor and returns them in GET and the list', async () => {
    const created = await post([
      {
        key: 'elec',
        label: 'Electricity',
        type: 'NUMBER',
        minValue: 0,
        maxValue: 1000,
        integer: true,
        warnChangeFactor: 3,
      },
      { key: 'open', label: 'Open', type: 'NUMBER' },
      { key: 'note', label: 'Note', type: 'TEXT' },
    ]);
    expect(created.status).toBe(200);
    const rules = (e: Record<string, unknown>) => [
      e['minValue'],
      e['maxValue'],
      e['integer'],
      e['warnChangeFactor'],
    ];
    expect(created.body.elements.map(rules)).toEqual([
      [0, 1000, true, 3],
      [null, null, false, null],
      [null, null, false, null],
    ]);
    const got = await api(t, 'GET', `/forms/${created.body.id}`, { token: tenant.viewer.token });
    expect(got.body.elements.map(rules)).toEqual(created.body.elements.map(rules));
    const list = await api(t, 'GET', '/forms', { token: tenant.viewer.token });
    const listed = list.body.find((f: { id: string }) => f.id === created.body.id);
    expect(listed.elements.map(rules)).toEqual(created.body.elements.map(rules));
  });

  it('changes and clears the rules on update', async () => {
    const created = await post([{ key: 'elec', label: 'Electricity', type: 'NUMBER', minValue: -5.5 }]);
    const id = created.body.id;
    const put = (element: Record<string, unknown>) =>
      api(t, 'PUT', `/forms/${id}`, {
        token: tenant.manager.token,
        body: {
          name: 'Rules',
          periodType: 'MONTHLY',
          elements: [{ key: 'elec', label: 'Electricity', type: 'NUMBER', ...element }],
        },
      });
    const changed = await put({ maxValue: 10, warnChangeFactor: 1.5 });
    expect(changed.status).toBe(200);
    expect(changed.body.elements[0]).toMatchObject({
      minValue: null,
      maxValue: 10,
      integer: false,
      warnChangeFactor: 1.5,
    });
    const limits = await put({ minValue: 10, maxValue: 10 });
    expect(limits.body.elements[0]).toMatchObject({ minValue: 10, maxValue: 10, warnChangeFactor: null });
  });

  it.each([
    [
      { type: 'TEXT', minValue: 0 },
      'elements.0.minValue',
      'elements.0.minValue is only allowed on NUMBER elements',
    ],
    [
      { type: 'DATE', maxValue: 3 },
      'elements.0.maxValue',
      'elements.0.maxValue is only allowed on NUMBER elements',
    ],
    [
      { type: 'BOOLEAN', integer: true },
      'elements.0.integer',
      'elements.0.integer is only allowed on NUMBER elements',
    ],
    [
      { type: 'TEXT', warnChangeFactor: 2 },
      'elements.0.warnChangeFactor',
      'elements.0.warnChangeFactor is only allowed on NUMBER elements',
    ],
    [
      { type: 'NUMBER', minValue: 5, maxValue: 4 },
      'elements.0.minValue',
      'elements.0.minValue must not be greater than maxValue (5 > 4)',
    ],
  ])('refuses %j with a 400 naming the field', async (element, path, message) => {
    const res = await post([{ key: 'x', label: 'X', ...element }]);
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path, message }]);
  });

  it('refuses a change factor of 1 or less, and numbers that are not finite', async () => {
    const one = await post([{ key: 'x', label: 'X', type: 'NUMBER', warnChangeFactor: 1 }]);
    expect(one.status).toBe(400);
    expect(one.body.issues[0].path).toContain('warnChangeFactor');
    // 1e309 is valid JSON that reads as Infinity.
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/forms',
      headers: { authorization: `Bearer ${tenant.manager.token}`, 'content-type': 'application/json' },
      payload:
        '{"name":"R","periodType":"MONTHLY","elements":[{"key":"x","label":"X","type":"NUMBER","maxValue":1e309}]}',
    });
    expect(response.statusCode).toBe(400);
    expect(JSON.stringify(JSON.parse(response.body).issues)).toContain('elements.0.maxValue');
  });

  it('accepts rules given as null or false on other types (they say nothing)', async () => {
    const res = await post([
      { key: 'x', label: 'X', type: 'TEXT', minValue: null, integer: false, warnChangeFactor: null },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.elements[0]).toMatchObject({ minValue: null, integer: false });
  });
});
