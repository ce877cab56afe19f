import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createTenant, type Tenant } from '../../../test/helpers/factories.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

// uiCode is checked for syntax at save (issue 51), without being run on the service.
const t = useTestApp();
let tenant: Tenant;

const body = (uiCode: string) => ({
  name: `Fuel ${Math.random()}`,
  uiCode,
  calcCode: 'return inputs.litres * 2.68;',
  inputs: [{ name: 'litres', type: 'number', required: true }],
});

beforeAll(async () => {
  tenant = await createTenant(t);
});
afterAll(() => shutdownSandbox());

describe('uiCode at save', () => {
  it('stores a component body as given', async () => {
    const uiCode = "return h('div', null, h('label', { for: 'l' }, 'Litres'));";
    const res = await api(t, 'POST', '/activity-definitions', {
      token: tenant.manager.token,
      body: body(uiCode),
    });
    expect(res.status).toBe(200);
    expect(res.body.uiCode).toBe(uiCode);
  });

  it('refuses a syntax error on POST and PUT with a 400 naming uiCode, the line and the column', async () => {
    const broken = "const a = 1;\nreturn h('div', null, a +);";
    const created = await api(t, 'POST', '/activity-definitions', {
      token: tenant.manager.token,
      body: body(broken),
    });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({
      code: 'BAD_REQUEST',
      issues: [
        {
          path: 'uiCode',
          message: 'uiCode: Unexpected token at line 2, column 26',
          code: 'uiCode.syntax',
          params: { detail: 'Unexpected token', line: 2, column: 26 },
        },
      ],
    });
    const ok = await api(t, 'POST', '/activity-definitions', { token: tenant.manager.token, body: body('') });
    const replaced = await api(t, 'PUT', `/activity-definitions/${ok.body.id}`, {
      token: tenant.manager.token,
      body: body('return h("div", null, values.litres'),
    });
    expect(replaced.status).toBe(400);
    expect(replaced.body.issues).toEqual([
      {
        path: 'uiCode',
        message: expect.stringMatching(/^uiCode: .* at line \d+, column \d+$/),
        code: 'uiCode.syntax',
        params: expect.objectContaining({ line: expect.any(Number), column: expect.any(Number) }),
      },
    ]);
    const kept = await api(t, 'GET', `/activity-definitions/${ok.body.id}`, { token: tenant.manager.token });
    expect(kept.body.uiCode).toBe('');
  });

  it('never runs it: a body with side effects is only parsed', async () => {
    (globalThis as { uiCodeRan?: boolean }).uiCodeRan = false;
    const res = await api(t, 'POST', '/activity-definitions', {
      token: tenant.manager.token,
      body: body('globalThis.uiCodeRan = true; return null;'),
    });
    expect(res.status).toBe(200);
    expect((globalThis as { uiCodeRan?: boolean }).uiCodeRan).toBe(false);
  });
});
