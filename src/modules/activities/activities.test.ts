import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, useTestApp } from '../../../test/helpers/app.ts';
import {
  type BuiltSite,
  buildActivityForm,
  buildDataset,
  buildSite,
} from '../../../test/helpers/builders.ts';
import type { Tenant } from '../../../test/helpers/factories.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
const http = client(t);
let tenant: Tenant;
let plant: BuiltSite;
let site: string;

afterAll(() => shutdownSandbox());

beforeAll(async () => {
  plant = await buildSite(t, {
    name: 'Plant A',
    metadata: { region: 'north' },
    assign: ['manager', 'collector', 'viewer'],
  });
  tenant = plant.tenant;
  site = plant.id;
});

describe('the “Done when” story: fuel purchases of a monthly form', () => {
  it('defines, submits, lists, patches and marks “no activity”', async () => {
    // Arrange: a definition with a fuel type choice and litres, in a monthly form on Plant A.
    const definition = await http.post('/activity-definitions', {
      token: tenant.manager.token,
      body: {
        name: 'Fuel combustion',
        uiCode: '',
        calcCode: [
          'const factors = { diesel: 2.68, petrol: 2.31 };',
          'const factor = factors[inputs.fuelType];',
          'return { value: inputs.litres * factor, metadata: { factor, site: context.site.name } };',
        ].join('\n'),
        inputs: [
          {
            name: 'fuelType',
            type: 'string',
            required: true,
            editor: {
              type: 'select',
              options: [
                { label: 'Diesel', value: 'diesel' },
                { label: 'Petrol', value: 'petrol' },
              ],
            },
          },
          { name: 'litres', type: 'number', required: true },
        ],
      },
    });
    expect(definition.status).toBe(200);
    expect(definition.json().key).toBe('fuel-combustion');
    const { form } = await buildActivityForm(t, {
      definition: { ...definition.json(), tenant },
      sites: [plant],
    });

    // Act: two purchases in March.
    const submitted = await http.post('/form-submissions', {
      token: tenant.collector.token,
      body: {
        formId: form.id,
        siteId: site,
        year: 2025,
        values: [
          {
            elementKey: 'fuel-combustion',
            periodUnit: 3,
            value: [
              { fuelType: 'diesel', litres: 100 },
              { fuelType: 'petrol', litres: 50 },
            ],
          },
        ],
      },
    });
    expect(submitted.status).toBe(200);
    const march = submitted.json().values[0]!;
    expect(march).toMatchObject({
      elementKey: 'fuel-combustion',
      periodUnit: 3,
      status: 'COMPLETED',
      value: [
        { fuelType: 'diesel', litres: 100 },
        { fuelType: 'petrol', litres: 50 },
      ],
    });
    expect(march.activities).toEqual([
      {
        activityId: expect.any(String),
        input: { fuelType: 'diesel', litres: 100 },
        value: 268,
        metadata: { factor: 2.68, site: 'Plant A' },
      },
      {
        activityId: expect.any(String),
        input: { fuelType: 'petrol', litres: 50 },
        value: 115.5,
        metadata: { factor: 2.31, site: 'Plant A' },
      },
    ]);

    // List them one per page.
    const list = (query: string) =>
      http.get(`/activities?formId=${form.id}&key=fuel-combustion${query}`, { token: tenant.viewer.token });
    const first = await list('&limit=1');
    expect(first.status).toBe(200);
    expect(first.body.pagination).toEqual({ total: 2, limit: 1, offset: 0, hasMore: true });
    expect(first.body.activities).toEqual([
      {
        activityId: march.activities![0]!.activityId,
        formElementSubmissionId: march.formElementSubmissionId,
        input: { fuelType: 'diesel', litres: 100 },
        value: 268,
        // The definition names no unit.
        unit: null,
        siteId: site,
        siteName: 'Plant A',
        year: 2025,
        periodUnit: 3,
        metadata: { factor: 2.68, site: 'Plant A' },
      },
    ]);
    const second = await list('&limit=1&offset=1');
    expect(second.body.pagination).toEqual({ total: 2, limit: 1, offset: 1, hasMore: false });
    expect(second.json().activities.map((a) => a.activityId)).toEqual([march.activities![1]!.activityId]);

    // Patch the petrol purchase: 80 litres; the value is calculated again.
    const patched = await http.patch(`/activities/${march.activities![1]!.activityId}`, {
      token: tenant.collector.token,
      body: { input: { litres: 80 } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      value: 80 * 2.31,
      input: { fuelType: 'petrol', litres: 80 },
      metadata: { factor: 2.31, site: 'Plant A' },
    });
    const after = await list('');
    expect(after.json().activities.map((a) => a.value)).toEqual([268, 80 * 2.31]);

    // April had no fuel purchases.
    const marked = await http.post('/activities/no-activity/mark', {
      token: tenant.collector.token,
      body: { formId: form.id, key: 'fuel-combustion', siteId: site, year: 2025, periodUnit: 4 },
    });
    expect(marked.status).toBe(200);
    expect(marked.body).toEqual({ success: true, id: expect.any(String) });
    const april = await list('&periodUnits=4');
    expect(april.body.activities).toEqual([]);
    expect(april.body.noActivity).toEqual([
      {
        id: marked.body.id,
        siteId: site,
        siteName: 'Plant A',
        year: 2025,
        periodUnit: 4,
        createdAt: expect.any(String),
      },
    ]);
  });
});

describe('context.coefficient', () => {
  it('picks the dataset item of the activity’s year (the latest not after it)', async () => {
    await buildDataset(t, {
      tenant,
      items: [
        { key: 'diesel', value: 2.5, year: 2023, unit: 'kgCO2e' },
        { key: 'diesel', value: 2.6, year: 2024, unit: 'kgCO2e' },
        { key: 'diesel', value: 2.9, year: 2026, unit: 'kgCO2e' },
      ],
    });
    const definition = await http.post('/activity-definitions', {
      token: tenant.manager.token,
      body: {
        name: 'Diesel by coefficient',
        uiCode: '',
        calcCode: [
          "const c = await context.coefficient('diesel');",
          "const fixed = await context.coefficient('diesel', { year: 2026 });",
          'return { value: inputs.litres * c.value, metadata: { factor: c.value, unit: c.unit, fixed: fixed.value } };',
        ].join('\n'),
        inputs: [{ name: 'litres', type: 'number', required: true }],
      },
    });
    expect(definition.status).toBe(200);
    const { form } = await buildActivityForm(t, {
      definition: { ...definition.json(), tenant },
      key: 'diesel',
      periodType: 'YEARLY',
      sites: [plant],
      years: [2024, 2025, 2026],
    });

    const submitFor = (year: number) =>
      http.post('/form-submissions', {
        token: tenant.collector.token,
        body: {
          formId: form.id,
          siteId: site,
          year,
          values: [{ elementKey: 'diesel', periodUnit: 1, value: [{ litres: 10 }] }],
        },
      });
    const in2025 = await submitFor(2025);
    const in2026 = await submitFor(2026);

    expect(in2025.status).toBe(200);
    expect(in2025.body.values[0].activities[0]).toMatchObject({
      value: 26,
      metadata: { factor: 2.6, unit: 'kgCO2e', fixed: 2.9 },
    });
    expect(in2026.body.values[0].activities[0]).toMatchObject({ value: 29, metadata: { factor: 2.9 } });
  });
});
