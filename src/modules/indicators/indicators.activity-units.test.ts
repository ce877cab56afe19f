import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
let tenant: Tenant;
let formId: string;
let definitionId: string;
const units: Record<string, string> = {};

afterAll(() => shutdownSandbox());

/** A travel definition returning kgCO2e (amount × 2); one plant, 2025 Q1: amounts 100 and 150. */
beforeAll(async () => {
  tenant = await createTenant(t);
  const rows = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  for (const r of rows) units[r.symbol] = r.id;
  const plant = await createSite(t, tenant.organizationId, { name: 'Plant' });
  const created = await api(t, 'POST', '/activity-definitions', {
    token: tenant.owner.token,
    body: {
      key: 'travel',
      name: 'Travel',
      uiCode: '',
      calcCode: 'return inputs.amount * 2',
      inputs: [{ name: 'amount', type: 'number', required: true }],
      unitId: units['kgCO2e'],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect(created.body).toMatchObject({ unitId: units['kgCO2e'], unitSymbol: 'kgCO2e' });
  definitionId = created.body.id;
  const form = await createForm(t, tenant, {
    periodType: 'QUARTERLY',
    elements: [{ type: 'ACTIVITY', label: 'Travel', activityDefinitionId: definitionId }],
  });
  formId = form.id;
  await activateForm(t, tenant, form.id, [plant], [2025]);
  const res = await api(t, 'POST', '/form-submissions', {
    token: tenant.owner.token,
    body: {
      formId,
      siteId: plant,
      year: 2025,
      values: [{ elementKey: 'travel', periodUnit: 1, value: [{ amount: 100 }, { amount: 150 }] }],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
});

describe('activity units', () => {
  it('converts an activity in kgCO2e inside a tCO2e indicator (÷ 1,000)', async () => {
    const created = await api(t, 'POST', '/indicators', {
      token: tenant.owner.token,
      body: {
        name: 'Travel',
        unitId: units['tCO2e'],
        expressionParts: [{ type: 'activity', value: `${formId}:travel` }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const res = await api(t, 'POST', '/indicators/current-values', {
      token: tenant.owner.token,
      body: { indicatorIds: [created.body.id], year: 2025 },
    });
    // (100 × 2) + (150 × 2) = 500 kgCO2e = 0.5 tCO2e.
    expect(res.body.results[created.body.id]).toMatchObject({ value: 0.5, unit: 'tCO2e', issues: [] });
  });

  it('refuses an activity in kgCO2e inside a kWh indicator', async () => {
    const res = await api(t, 'POST', '/indicators', {
      token: tenant.owner.token,
      body: {
        name: 'Wrong',
        unitId: units['kWh'],
        expressionParts: [{ type: 'activity', value: `${formId}:travel` }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.issues[0]).toMatchObject({ path: 'expressionParts.0' });
    expect(res.body.issues[0].message).toContain('kgCO2e is emissions, the indicator is energy (kWh)');
  });

  it('shows the unit on GET /activities items and on the definition; refuses an unknown unit', async () => {
    const list = await api(t, 'GET', `/activities?formId=${formId}&key=travel`, {
      token: tenant.owner.token,
    });
    expect(list.status).toBe(200);
    expect(
      list.body.activities.map((a: { value: number; unit: string }) => [a.value, a.unit]).sort(),
    ).toEqual([
      [200, 'kgCO2e'],
      [300, 'kgCO2e'],
    ]);
    const got = await api(t, 'GET', `/activity-definitions/${definitionId}`, { token: tenant.viewer.token });
    expect(got.body).toMatchObject({ unitId: units['kgCO2e'], unitSymbol: 'kgCO2e' });
    const bad = await api(t, 'POST', '/activity-definitions', {
      token: tenant.owner.token,
      body: {
        name: 'Bad',
        uiCode: '',
        calcCode: 'return 1',
        inputs: [],
        unitId: '00000000-0000-4000-8000-000000000000',
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.issues[0].path).toBe('unitId');
  });
});
