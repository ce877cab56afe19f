import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  createActivityDefinition,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';
import { indicatorSeries } from './indicators.series.ts';

const t = useTestApp();
let tenant: Tenant;
let group: string;
let plant: string;
let formId: string;

afterAll(() => shutdownSandbox());

beforeAll(async () => {
  tenant = await createTenant(t);
  group = await createSite(t, tenant.organizationId, { name: 'Group' });
  plant = await createSite(t, tenant.organizationId, { name: 'Plant', parentId: group });
  const definition = await createActivityDefinition(t, tenant.organizationId, {
    key: 'fuel',
    calcCode: 'return inputs.amount * 2',
  });
  const form = await createForm(t, tenant, {
    periodType: 'QUARTERLY',
    elements: [
      { type: 'ACTIVITY', label: 'Fuel', activityDefinitionId: definition },
      { key: 'staff', label: 'Staff', type: 'NUMBER' },
    ],
  });
  formId = form.id;
  await activateForm(t, tenant, form.id, [group, plant], [2025]);
  const submit = (siteId: string, values: unknown[]) =>
    api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: { formId, siteId, year: 2025, values },
    });
  // Plant: Q1 two refuels (10 and 5 -> 20 + 10), Q2 one (1 -> 2); group: Q1 (100 -> 200).
  expect(
    (
      await submit(plant, [
        { elementKey: 'fuel', periodUnit: 1, value: [{ amount: 10 }, { amount: 5 }] },
        { elementKey: 'fuel', periodUnit: 2, value: [{ amount: 1 }] },
        { elementKey: 'staff', periodUnit: 1, value: 4 },
      ])
    ).status,
  ).toBe(200);
  expect(
    (await submit(group, [{ elementKey: 'fuel', periodUnit: 1, value: [{ amount: 100 }] }])).status,
  ).toBe(200);
});

describe('activity operands', () => {
  it('sum the activities of the element in scope, divided here by staff', async () => {
    const created = await api(t, 'POST', '/indicators', {
      token: tenant.owner.token,
      body: {
        name: 'Fuel per head',
        expressionParts: [
          { type: 'activity', value: `${formId}:fuel` },
          { type: 'operator', value: '/' },
          {
            type: 'formElement',
            value: (await api(t, 'GET', `/forms/${formId}`, { token: tenant.owner.token })).body.elements[1]
              .id,
          },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const values = (body: Record<string, unknown>) =>
      api(t, 'POST', '/indicators/current-values', {
        token: tenant.owner.token,
        body: { indicatorIds: [created.body.id], year: 2025, explain: true, ...body },
      });
    // Group with its plant: (200 + 30 + 2) / 4.
    const all = await values({ siteIds: [group] });
    expect(all.body.results[created.body.id]).toMatchObject({ value: 58 });
    expect(all.body.results[created.body.id].explain.operands[0]).toMatchObject({
      type: 'activity',
      value: 232,
      valueCount: 4,
      siteCount: 2,
    });
    // Plant, Q1: 30 / 4.
    expect((await values({ siteIds: [plant], periodUnits: [1] })).body.results[created.body.id].value).toBe(
      7.5,
    );
  });

  it('add up per quarter and per month in a series, per requested site', async () => {
    const created = await api(t, 'POST', '/indicators', {
      token: tenant.owner.token,
      body: { name: 'Fuel', expressionParts: [{ type: 'activity', value: `${formId}:fuel` }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const series = (grouping: 'QUARTERLY' | 'MONTHLY') =>
      t.database.tenant(tenant.organizationId, (tx) =>
        indicatorSeries(
          tx,
          { organizationId: tenant.organizationId },
          {
            indicatorIds: [created.body.id],
            siteIds: [group, plant],
            bySite: true,
            fromYear: 2025,
            toYear: 2025,
            grouping,
          },
          new Date(),
        ),
      );
    const points = (r: { points: { period: string; value: { value: number | null } }[] }) =>
      r.points.filter((p) => p.value.value !== null).map((p) => [p.period, p.value.value]);
    const [all, mine] = await series('QUARTERLY');
    // Group with its plant: Q1 200 + 30, Q2 2; the plant alone: Q1 30, Q2 2.
    expect([all!.siteId, all!.total.value, points(all!)]).toEqual([
      group,
      232,
      [
        ['2025-Q1', 230],
        ['2025-Q2', 2],
      ],
    ]);
    expect([mine!.siteId, mine!.total.value, points(mine!)]).toEqual([
      plant,
      32,
      [
        ['2025-Q1', 30],
        ['2025-Q2', 2],
      ],
    ]);
    // A quarter's activities fall in its first month.
    const [monthly] = await series('MONTHLY');
    expect(points(monthly!)).toEqual([
      ['2025-01', 230],
      ['2025-04', 2],
    ]);
  });
});
