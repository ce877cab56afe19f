import { Ajv } from 'ajv';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../test/helpers/app.ts';
import { createTenant } from '../../test/helpers/factories.ts';
import { Nullable, Uuid } from './schemas.ts';
import { type AjvError, plainErrors } from './validation.ts';

const t = useTestApp();

describe('one clear issue per invalid field', () => {
  it('a nullable id given a text is one issue naming what is expected', async () => {
    const tenant = await createTenant(t);
    const res = await api(t, 'POST', '/forms', {
      token: tenant.manager.token,
      body: {
        name: 'Gas',
        periodType: 'MONTHLY',
        elements: [{ key: 'gas', label: 'Gas', type: 'NUMBER', unitId: 'm3' }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.issues).toMatchObject([
      { path: 'elements.0.unitId', message: 'elements.0.unitId must be a unit id or null' },
    ]);
  });

  it('options given as texts are one issue', async () => {
    const tenant = await createTenant(t);
    const res = await api(t, 'POST', '/forms', {
      token: tenant.manager.token,
      body: {
        name: 'Kinds',
        periodType: 'YEARLY',
        elements: [{ key: 'kind', label: 'Kind', type: 'SELECT', options: ['a', 'b'] }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.issues).toMatchObject([
      {
        path: 'elements.0.options',
        message: 'elements.0.options must be a list of objects {label, value} or null',
      },
    ]);
  });

  it('an option without its value still names the missing field', async () => {
    const tenant = await createTenant(t);
    const res = await api(t, 'POST', '/forms', {
      token: tenant.manager.token,
      body: {
        name: 'Kinds',
        periodType: 'YEARLY',
        elements: [{ key: 'kind', label: 'Kind', type: 'SELECT', options: [{ label: 'A' }] }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.issues).toMatchObject([
      { path: 'elements.0.options.0.value', message: 'elements.0.options.0.value is required' },
    ]);
  });

  it('a latitude sent as text says it must be a number or null', async () => {
    const tenant = await createTenant(t);
    const res = await api(t, 'POST', '/sites', {
      token: tenant.manager.token,
      body: { name: 'Plant', latitude: '48.1' },
    });
    expect(res.status).toBe(400);
    expect(res.body.issues).toMatchObject([
      { path: 'latitude', message: 'latitude must be a number or null' },
    ]);
  });
});

describe('plainErrors', () => {
  const check = (schema: object, data: unknown) => {
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: false });
    ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
    const validate = ajv.compile(schema);
    validate(data);
    return plainErrors((validate.errors ?? []) as AjvError[]).map((e) => [e.instancePath, e.message]);
  };

  it('keeps a plain error as it is', () => {
    expect(check(Type.Object({ n: Type.Integer({ minimum: 1 }) }), { n: 0 })).toEqual([
      ['/n', 'must be >= 1'],
    ]);
  });

  it('keeps the errors inside a branch whose shape the object has', () => {
    const schema = Type.Object({
      v: Type.Union([
        Type.Object({ elementId: Uuid, value: Type.Number() }, { additionalProperties: false }),
        Type.Object({ elementKey: Type.String(), value: Type.Number() }, { additionalProperties: false }),
      ]),
    });
    expect(check(schema, { v: { elementKey: 'gas', value: 'x' } })).toEqual([['/v/value', 'must be number']]);
    // Missing in every branch: said once.
    expect(check(schema, { v: { elementKey: 'gas' } })).toEqual([
      ['/v', "must have required property 'value'"],
    ]);
    // The shape of no branch: one issue naming the alternatives.
    expect(
      check(schema, {
        v: { elementId: '7c1e4f3a-2b6d-4c8e-9f01-3a5b7c9d1e02', elementKey: 'gas', value: 1 },
      }),
    ).toEqual([['/v', 'must be an object {elementId, value} or an object {elementKey, value}']]);
  });

  it('a malformed id names the record it should identify', () => {
    expect(check(Type.Object({ siteId: Uuid }), { siteId: 'x' })).toEqual([['/siteId', 'must be a site id']]);
  });

  it('keeps the order of the fields', () => {
    const schema = Type.Object({ unitId: Nullable(Uuid), name: Type.String() });
    expect(check(schema, { unitId: 'm3', name: 7 })).toEqual([
      ['/unitId', 'must be a unit id or null'],
      ['/name', 'must be string'],
    ]);
  });

  it('a union may say what it expects with x-expected', () => {
    const schema = Type.Object({
      v: Type.Union([Type.Integer(), Type.Null()], { 'x-expected': 'be a year such as 2025, or null' }),
    });
    expect(check(schema, { v: 'soon' })).toEqual([['/v', 'must be a year such as 2025, or null']]);
  });

  it('nullable pieces of nested lists keep their path', () => {
    const schema = Type.Object({ items: Type.Array(Type.Object({ parentId: Nullable(Uuid) })) });
    expect(check(schema, { items: [{ parentId: null }, { parentId: 7 }] })).toEqual([
      ['/items/1/parentId', 'must be a parent id or null'],
    ]);
  });
});
