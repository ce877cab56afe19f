import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, useTestApp } from '../../../test/helpers/app.ts';
import {
  buildActivityDefinition,
  buildActivityForm,
  buildDataset,
  buildSite,
  buildSubmission,
  buildTenant,
} from '../../../test/helpers/builders.ts';
import type { Tenant } from '../../../test/helpers/factories.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
const http = client(t);
let tenant: Tenant;
let other: Tenant;
let site: string;

afterAll(() => shutdownSandbox());

const recalculate = (id: string, token = tenant.manager.token) =>
  http.post(`/activity-definitions/${id}/recalculate`, { token });
const setCalcCode = (id: string, calcCode: string) =>
  t.database.system((tx) =>
    tx.updateTable('activity_definitions').set({ calc_code: calcCode }).where('id', '=', id).execute(),
  );

/** A definition in a yearly form active on `site` for the years; answers its id and the form's. */
async function setUp(key: string, calcCode: string, years: number[]) {
  const { definition, form } = await buildActivityForm(t, {
    tenant,
    definition: { key, calcCode },
    periodType: 'YEARLY',
    sites: [site],
    years,
  });
  const enter = async (year: number, amounts: number[]) => {
    const values = [{ elementKey: key, periodUnit: 1, value: amounts.map((amount) => ({ amount })) }];
    return (await buildSubmission(t, { form, site, year, values })).submission.values[0];
  };
  return { definition: definition.id, form, enter };
}

const activitiesOf = (definition: string) =>
  t.database.tenant(tenant.organizationId, (tx) =>
    tx
      .selectFrom('activities')
      .select(['id', 'year', 'value', 'metadata', 'form_element_submission_id'])
      .where('activity_definition_id', '=', definition)
      .orderBy('year')
      .orderBy('position')
      .execute(),
  );

beforeAll(async () => {
  tenant = await buildTenant(t);
  other = await buildTenant(t);
  site = (await buildSite(t, { tenant, assign: ['manager'] })).id;
});

describe('POST /activity-definitions/{id}/recalculate', () => {
  it('recalculates every activity with the current calcCode, with history and new sums', async () => {
    const { definition, enter } = await setUp('double', 'return inputs.amount * 2', [2024, 2025]);
    const item2024 = await enter(2024, [1, 2]);
    await enter(2025, [3]);
    await setCalcCode(definition, 'return { value: inputs.amount * 3, metadata: { year: context.year } }');

    const res = await recalculate(definition);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ recalculated: 3, changed: 3, failed: 0, skipped: 0, failures: [] });
    expect((await activitiesOf(definition)).map((a) => [a.year, a.value, a.metadata])).toEqual([
      [2024, 3, { year: 2024 }],
      [2024, 6, { year: 2024 }],
      [2025, 9, { year: 2025 }],
    ]);
    const value = await t.database.tenant(tenant.organizationId, (tx) =>
      tx
        .selectFrom('form_element_submissions')
        .select(['numeric_value', 'status'])
        .where('id', '=', item2024.formElementSubmissionId)
        .executeTakeFirstOrThrow(),
    );
    expect(value).toEqual({ numeric_value: 9, status: 'COMPLETED' });
    const history = await t.database.tenant(tenant.organizationId, (tx) =>
      tx
        .selectFrom('activity_history')
        .select(['action', 'before', 'after', 'user_id'])
        .where('activity_id', '=', item2024.activities[0].activityId)
        .orderBy('seq')
        .execute(),
    );
    expect(history[1]).toEqual({
      action: 'RECALCULATE',
      before: { input: { amount: 1 }, value: 2, metadata: {} },
      after: { input: { amount: 1 }, value: 3, metadata: { year: 2024 } },
      user_id: tenant.manager.userId,
    });

    const again = await recalculate(definition);
    expect(again.body).toEqual({ recalculated: 3, changed: 0, failed: 0, skipped: 0, failures: [] });
  });

  it('keeps activities whose calculation fails, and lists them', async () => {
    const { definition, enter } = await setUp('fragile', 'return inputs.amount', [2025]);
    const item = await enter(2025, [1, 2, 3]);
    await setCalcCode(
      definition,
      "if (inputs.amount === 2) throw new Error('two is bad'); return inputs.amount * 10",
    );

    const res = await recalculate(definition);

    expect(res.body).toEqual({
      recalculated: 2,
      changed: 2,
      failed: 1,
      skipped: 0,
      failures: [{ activityId: item.activities[1].activityId, message: expect.stringMatching(/two is bad/) }],
    });
    expect((await activitiesOf(definition)).map((a) => a.value)).toEqual([10, 2, 30]);
  });

  it('works through several batches, counting every failure and listing the first 100', async () => {
    const bulk = await buildActivityForm(t, { tenant, definition: { key: 'bulk' }, sites: [site] });
    const definition = bulk.definition.id;
    const list = (offset: number) => Array.from({ length: 900 }, (_, i) => ({ amount: offset + i }));
    await buildSubmission(t, {
      form: bulk.form,
      site,
      values: [1, 2, 3].map((periodUnit) => ({
        elementKey: 'bulk',
        periodUnit,
        value: list(periodUnit * 1000),
      })),
    });
    await setCalcCode(
      definition,
      "if (inputs.amount % 20 === 7) throw new Error('bad'); return inputs.amount + 0.5",
    );

    const res = await recalculate(definition);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ recalculated: 2700 - 135, changed: 2700 - 135, failed: 135 });
    expect(res.body.failures).toHaveLength(100);
    const stored = await activitiesOf(definition);
    expect(stored.filter((a) => a.value % 1 === 0.5)).toHaveLength(2700 - 135);
  });

  it('looks coefficients up in each activity’s own year', async () => {
    await buildDataset(t, {
      tenant,
      items: [
        { key: 'grid', value: 1, year: 2020 },
        { key: 'grid', value: 5, year: 2023 },
      ],
    });
    const { definition, enter } = await setUp('grid', 'return inputs.amount', [2021, 2022, 2023, 2024]);
    for (const year of [2021, 2023, 2022, 2024]) await enter(year, [2]);
    await setCalcCode(definition, "return inputs.amount * (await context.coefficient('grid')).value");

    const res = await recalculate(definition);

    expect(res.body.recalculated).toBe(4);
    expect((await activitiesOf(definition)).map((a) => [a.year, a.value])).toEqual([
      [2021, 2],
      [2022, 2],
      [2023, 10],
      [2024, 10],
    ]);
  });

  it('answers 404 for an unknown, malformed or other tenant’s definition, and 403 below MANAGER', async () => {
    const foreign = (await buildActivityDefinition(t, { tenant: other })).id;
    const mine = (await buildActivityDefinition(t, { tenant })).id;

    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', foreign]) {
      expect((await recalculate(id)).status, id).toBe(404);
    }
    expect((await recalculate(mine, tenant.collector.token)).status).toBe(403);
    expect((await recalculate(mine)).body).toEqual({
      recalculated: 0,
      changed: 0,
      failed: 0,
      skipped: 0,
      failures: [],
    });
  });

  it('keeps a definition with activities from being deleted', async () => {
    const { definition, form, enter } = await setUp('kept', 'return inputs.amount', [2025]);
    await enter(2025, [1]);
    // Point the element at another definition: only the activities still refer to this one.
    const replacement = (await buildActivityDefinition(t, { tenant, key: 'replacement' })).id;
    const stored = await http.get(`/forms/${form.id}`, { token: tenant.owner.token });
    const changed = await http.put(`/forms/${form.id}`, {
      token: tenant.owner.token,
      body: {
        name: stored.json().name,
        periodType: 'YEARLY',
        elements: [{ key: 'kept', label: 'Kept', type: 'ACTIVITY', activityDefinitionId: replacement }],
      },
    });
    expect(changed.status).toBe(200);

    const res = await http.delete(`/activity-definitions/${definition}`, {
      token: tenant.manager.token,
    });

    expect(res.status).toBe(400);
    expect((await activitiesOf(definition)).length).toBe(1);
  });
});
