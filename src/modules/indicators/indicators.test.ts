import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createForm, createTenant, type Tenant } from '../../../test/helpers/factories.ts';
import {
  createIndicatorWorld,
  el,
  type IndicatorWorld,
  ind,
  num,
  op,
  paren,
} from '../../../test/helpers/indicator-world.ts';

const t = useTestApp();
let w: IndicatorWorld;
let stranger: Tenant;

beforeAll(async () => {
  w = await createIndicatorWorld(t);
  stranger = await createTenant(t);
});

const put = (id: string, body: Record<string, unknown>) =>
  api(t, 'PUT', `/indicators/${id}`, { token: w.tenant.manager.token, body });

describe('indicators: save-time validation', () => {
  it.each([
    ['a dangling operator', () => [el(w.element.elec), op('*')], 1],
    ['an unbalanced parenthesis', () => [paren('('), el(w.element.elec), op('+'), num('1')], 0],
    ['a stray closing parenthesis', () => [el(w.element.elec), paren(')')], 1],
    ['two operands in a row', () => [el(w.element.elec), el(w.element.head)], 1],
    ['an unknown element', () => [num('1'), op('+'), el('6f1c3a2e-0000-4000-8000-000000000000')], 2],
    ['a malformed element id', () => [el('not-an-id')], 0],
    ['an unknown coefficient', () => [el(w.element.elec), op('*'), { type: 'datasetItem', value: 'x' }], 2],
    ['an unknown indicator', () => [ind('6f1c3a2e-0000-4000-8000-000000000000')], 0],
    ['an unknown activity', () => [{ type: 'activity', value: `${w.formId}:nothing` }], 0],
    ['an unknown part type', () => [{ type: 'widget', value: 'w' }], 0],
  ])('refuses %s with a 400 naming the part', async (_name, parts, index) => {
    const res = await w.create({ name: 'bad', expressionParts: parts() });
    expect(res.status).toBe(400);
    expect(res.body.issues[0].path).toBe(`expressionParts.${index}`);
  });

  it('refuses another tenant’s element and coefficient', async () => {
    const form = await createForm(t, stranger, { elements: [{ key: 'x', label: 'X', type: 'NUMBER' }] });
    const theirs = await api(t, 'POST', '/indicators', {
      token: w.tenant.manager.token,
      body: { name: 'theirs', expressionParts: [el(form.elements[0]!.id)] },
    });
    expect(theirs).toMatchObject({ status: 400, body: { issues: [{ path: 'expressionParts.0' }] } });
    const item = await api(t, 'POST', '/indicators', {
      token: stranger.owner.token,
      body: {
        name: 'mine',
        expressionParts: [num('2'), op('*'), { type: 'datasetItem', value: w.gasFactorId }],
      },
    });
    expect(item).toMatchObject({ status: 400, body: { issues: [{ path: 'expressionParts.2' }] } });
  });

  it('refuses units that cannot be converted', async () => {
    const form = await createForm(t, w.tenant, {
      elements: [{ key: 'mass', label: 'Mass', type: 'NUMBER', unitId: w.units['kg'] }],
    });
    const res = await w.create({
      name: 'mass × grid',
      expressionParts: [el(form.elements[0]!.id), op('*'), w.gridKey],
    });
    expect(res).toMatchObject({ status: 400, body: { issues: [{ path: 'expressionParts.0' }] } });
    expect(res.body.issues[0].message).toContain('kg cannot be converted into kWh');
    const display = await w.create({
      name: 'display',
      unitId: w.units['kWh'],
      displayUnitId: w.units['kg'],
      expressionParts: [el(w.element.elec)],
    });
    expect(display).toMatchObject({ status: 400, body: { issues: [{ path: 'displayUnitId' }] } });
  });

  it('refuses cycles, also through PUT, and self references', async () => {
    const a = (await w.create({ name: 'A', expressionParts: [el(w.element.elec)] })).body.id;
    const b = (await w.create({ name: 'B', expressionParts: [ind(a), op('*'), num('2')] })).body.id;
    const c = (await w.create({ name: 'C', expressionParts: [ind(b)] })).body.id;
    const cycle = await put(a, { expressionParts: [el(w.element.elec), op('+'), ind(c)] });
    expect(cycle).toMatchObject({ status: 400, body: { issues: [{ path: 'expressionParts.2' }] } });
    expect(cycle.body.issues[0].message).toContain('cycle');
    const self = await put(a, { expressionParts: [ind(a)] });
    expect(self).toMatchObject({ status: 400, body: { issues: [{ path: 'expressionParts.0' }] } });
    // A new indicator cannot be part of a cycle: nothing uses it yet.
    expect((await put(c, { expressionParts: [ind(a), op('+'), ind(b)] })).status).toBe(200);
  });

  it('refuses to delete an indicator another one uses, naming it', async () => {
    const base = (await w.create({ name: 'base', expressionParts: [num('1')] })).body.id;
    const user = (await w.create({ name: 'user', label: 'The user', expressionParts: [ind(base)] })).body.id;
    const refused = await api(t, 'DELETE', `/indicators/${base}`, { token: w.tenant.manager.token });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('The user');
    expect((await api(t, 'DELETE', `/indicators/${user}`, { token: w.tenant.manager.token })).status).toBe(
      200,
    );
    expect((await api(t, 'DELETE', `/indicators/${base}`, { token: w.tenant.manager.token })).status).toBe(
      200,
    );
    expect((await api(t, 'GET', `/indicators/${base}`, { token: w.tenant.viewer.token })).status).toBe(404);
  });

  it('lets managers write and every member read; 404 for other tenants’ indicators', async () => {
    const body = { name: 'x', expressionParts: [num('1')] };
    expect((await api(t, 'POST', '/indicators', { token: w.tenant.collector.token, body })).status).toBe(403);
    const id = (await w.create(body)).body.id;
    expect((await api(t, 'GET', `/indicators/${id}`, { token: w.tenant.viewer.token })).status).toBe(200);
    expect((await api(t, 'GET', `/indicators/${id}`, { token: stranger.owner.token })).status).toBe(404);
    expect((await api(t, 'PUT', `/indicators/${id}`, { token: stranger.owner.token, body })).status).toBe(
      404,
    );
  });
});

describe('GET /indicators', () => {
  it('lists every field of spec 2.9, and the deleted element’s issue', async () => {
    const scope2 = await w.create({
      name: 'Scope 2',
      label: 'Scope 2 emissions',
      tags: ['ghg'],
      unitId: w.units['kgCO2e'],
      displayUnitId: w.units['tCO2e'],
      expressionParts: [el(w.element.elec), op('*'), w.gridKey],
    });
    const total = await w.create({
      name: 'Total',
      expressionParts: [
        ind(scope2.body.id),
        op('+'),
        el(w.element.gas),
        op('*'),
        { type: 'datasetItem', value: w.gasFactorId },
      ],
    });
    const list = await api(t, 'GET', '/indicators', { token: w.tenant.viewer.token });
    expect(list.status).toBe(200);
    const item = list.body.find((i: { id: string }) => i.id === scope2.body.id);
    expect(item).toMatchObject({
      name: 'Scope 2',
      label: 'Scope 2 emissions',
      unitName: 'kilogram CO2 equivalent',
      displayUnitName: 'tonne CO2 equivalent',
      tags: ['ghg'],
      preferredDatasetItemName: null,
      datasetItems: [
        {
          name: 'Grid electricity',
          datasetId: w.datasetId,
          datasetName: 'Grid factors',
          year: 2025,
          data: { key: 'grid', value: 0.5, unit: 'kgCO2e' },
          inputUnitId: w.units['kWh'],
          inputUnitSymbol: 'kWh',
        },
      ],
      widgetUsage: [],
      issues: [],
      _count: { datasets: 1 },
      indicatorUsage: [{ indicatorId: total.body.id, indicatorLabel: 'Total' }],
    });
    const totalItem = list.body.find((i: { id: string }) => i.id === total.body.id);
    expect(totalItem._count).toEqual({ datasets: 1 });
    expect(totalItem.datasetItems).toHaveLength(1);

    // Delete the electricity element (a form PUT without it soft-deletes it).
    const form = await api(t, 'GET', `/forms/${w.formId}`, { token: w.tenant.owner.token });
    const kept = form.body.elements.filter((e: { key: string }) => e.key !== 'elec');
    const updated = await api(t, 'PUT', `/forms/${w.formId}`, {
      token: w.tenant.owner.token,
      body: {
        name: form.body.name,
        periodType: form.body.periodType,
        elements: kept.map((e: Record<string, unknown>) => ({
          id: e['id'],
          key: e['key'],
          label: e['label'],
          type: e['type'],
          unitId: e['unitId'],
          aggregation: e['aggregation'],
        })),
      },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const after = await api(t, 'GET', `/indicators/${scope2.body.id}`, { token: w.tenant.viewer.token });
    expect(after.body.issues).toMatchObject([
      {
        type: 'deletedFormElement',
        formElementId: w.element.elec,
        formName: form.body.name,
        fieldName: 'Electricity',
        partIndex: 0,
      },
    ]);
    // Its values are kept and still counted, with the issue.
    const values = await w.values({ indicatorIds: [scope2.body.id], year: 2025, siteIds: [w.sites.plant2] });
    expect(values.body.results[scope2.body.id]).toMatchObject({
      value: 500,
      issues: [{ type: 'deletedFormElement' }],
    });
  });

  it('keeps the element aggregation in the forms API', async () => {
    const form = await api(t, 'GET', `/forms/${w.formId}`, { token: w.tenant.owner.token });
    expect(
      form.body.elements.map((e: { key: string; aggregation: string }) => [e.key, e.aggregation]),
    ).toEqual(
      expect.arrayContaining([
        ['head', 'LAST'],
        ['area', 'AVERAGE'],
      ]),
    );
    const bad = await api(t, 'POST', '/forms', {
      token: w.tenant.owner.token,
      body: {
        name: 'x',
        periodType: 'YEARLY',
        elements: [{ key: 't', label: 'T', type: 'TEXT', aggregation: 'LAST' }],
      },
    });
    expect(bad).toMatchObject({ status: 400, body: { issues: [{ path: 'elements.0.aggregation' }] } });
  });
});
