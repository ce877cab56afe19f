import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/app.ts';
import { shutdownSandbox } from '../../src/sandbox/index.ts';
import { api, useTestApp } from '../helpers/app.ts';
import { errorText } from '../helpers/errors.ts';
import { activateForm, createActivityDefinition, createForm, createSite } from '../helpers/factories.ts';
import { createSubmissionWorld, type SubmissionWorld } from '../helpers/submission-world.ts';

/** Input that used to reach the database or the sandbox unchecked and answer 500 (issue 10.4). */
const t = useTestApp();
let world: SubmissionWorld;

beforeAll(async () => {
  world = await createSubmissionWorld(t);
});
afterAll(() => shutdownSandbox());

const paths = (body: { issues?: { path?: string }[] }) => (body.issues ?? []).map((i) => i.path);

/** A form with one ACTIVITY element whose definition runs `calcCode`; answers a submit function. */
async function activityForm(calcCode: string, metadataSchema?: Record<string, unknown>) {
  const { tenant } = world;
  const key = `calc-${Math.random().toString(36).slice(2, 8)}`;
  const definition = await createActivityDefinition(t, tenant.organizationId, {
    key,
    inputs: [{ name: 'x', type: 'number' }],
    calcCode,
    ...(metadataSchema ? { metadataSchema } : {}),
  });
  const site = await createSite(t, tenant.organizationId);
  const form = await createForm(t, tenant, {
    periodType: 'YEARLY',
    elements: [{ label: 'Calc', type: 'ACTIVITY', activityDefinitionId: definition }],
  });
  await activateForm(t, tenant, form.id, [site], [2025]);
  return (value: unknown) =>
    api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId: site,
        year: 2025,
        values: [{ elementKey: key, periodUnit: 1, value }],
      },
    });
}

describe('no 500 from input', () => {
  it('a lone UTF-16 surrogate anywhere in a JSON body is a 400 naming the field', async () => {
    const token = world.tenant.owner.token;
    const cases: [string, unknown, string][] = [
      ['/sites', { name: 'S', metadata: { a: { b: '\ud800' } } }, 'metadata.a.b'],
      ['/sites', { name: 'x\udc00y' }, 'name'],
      ['/sites', { name: 'S', address: { street: '\udbff' } }, 'address.street'],
      ['/sites', { name: 'S', metadata: { ['k\ud800']: 1 } }, 'metadata.k\\ud800'],
    ];
    for (const [url, body, path] of cases) {
      const res = await api(t, 'POST', url, { token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(paths(res.body)).toEqual([path]);
      expect(errorText(res.body)).toMatch(/surrogate/);
    }
    const pair = await api(t, 'POST', '/sites', { token, body: { name: 'Smile \ud83d\ude00' } });
    expect(pair.status).toBe(200);
    expect(pair.body.name).toBe('Smile \ud83d\ude00');
  });

  it('TEXT and TIMESTAMP values with a lone surrogate are a 400 naming the value', async () => {
    const res = await world.submit({ values: [{ elementKey: 'note', periodUnit: 1, value: 'a\ud800' }] });
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual(['values.0.value']);
  });

  it('a body in a charset other than UTF-8 is a 400; utf-8 in any spelling is read', async () => {
    const send = (contentType: string) =>
      t.app.inject({
        method: 'POST',
        url: `${API_PREFIX}/sites`,
        headers: { authorization: `Bearer ${world.tenant.owner.token}`, 'content-type': contentType },
        payload: JSON.stringify({ name: `Charset ${contentType}` }),
      });
    for (const type of ['application/json; charset=utf-16', 'application/json; charset=latin1']) {
      const res = await send(type);
      expect(res.statusCode, type).toBe(400);
      expect(res.json().issues[0].path).toBe('content-type');
    }
    for (const type of [
      'application/json; charset=utf-8',
      'application/json; charset="UTF-8"',
      'application/json',
    ]) {
      expect((await send(type)).statusCode, type).toBe(200);
    }
  });

  it('__proto__ and constructor.prototype keys are a 400 with their path', async () => {
    for (const [payload, path] of [
      ['{"name":"x","metadata":{"a":{"__proto__":{"admin":true}}}}', 'metadata.a.__proto__'],
      ['{"name":"x","constructor":{"prototype":{}}}', 'constructor.prototype'],
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: `${API_PREFIX}/sites`,
        headers: { authorization: `Bearer ${world.tenant.owner.token}`, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, payload).toBe(400);
      expect(paths(res.json())).toEqual([path]);
    }
  });

  it('selectedUnitId "" is a 400 naming it', async () => {
    const res = await world.submit({
      values: [{ elementKey: 'energy', periodUnit: 1, value: 1, selectedUnitId: '' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(paths(res.body)).toEqual(['values.0.selectedUnitId']);
  });

  it('context.coefficient with a year no database can hold is a 400 naming the activity', async () => {
    for (const year of ['1e300 / 2 ** 53', '2 ** 53', '1e300']) {
      const submit = await activityForm(
        `const c = await context.coefficient('k', { year: ${year} }); return 1;`,
      );
      const res = await submit([{ x: 1 }]);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(paths(res.body)).toEqual(['values.0.value.0']);
      expect(errorText(res.body)).toMatch(/year/);
    }
  });

  it('calcCode metadata whose toJSON returns a string is refused, not stored as a string', async () => {
    const submit = await activityForm("return { value: 1, metadata: { toJSON() { return 'stored' } } };");
    const res = await submit([{ x: 1 }]);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(paths(res.body)).toEqual(['values.0.value.0']);
    expect(errorText(res.body)).toMatch(/metadata/);
  });

  it('activities adding up past the largest number are a 400, not a NULL total', async () => {
    // Inputs past 2^53 are refused as input (decision 184): the calculation makes the large figures.
    const submit = await activityForm('return inputs.x * 1e300;');
    const res = await submit([{ x: 1e8 }, { x: 1e8 }]);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(paths(res.body)).toEqual(['values.0.value']);
  });

  it('a DELETE with a JSON content type and no body is accepted', async () => {
    const created = await api(t, 'POST', '/apikeys', {
      token: world.tenant.owner.token,
      body: { name: 'k' },
    });
    expect(created.status).toBe(200);
    const res = await t.app.inject({
      method: 'DELETE',
      url: `${API_PREFIX}/apikeys/${created.body.id}`,
      headers: { authorization: `Bearer ${world.tenant.owner.token}`, 'content-type': 'application/json' },
    });
    expect(res.statusCode, res.body).toBe(200);
  });
});
