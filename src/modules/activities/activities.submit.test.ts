import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActivityWorld, createActivityWorld } from '../../../test/helpers/activity-world.ts';
import { client, useTestApp } from '../../../test/helpers/app.ts';
import {
  buildActivityDefinition,
  buildActivityForm,
  buildForm,
  buildFormSites,
  buildTenant,
} from '../../../test/helpers/builders.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
let w: ActivityWorld;

afterAll(() => shutdownSandbox());

const submit = (values: unknown[]) => w.submit(values);
const fuel = (periodUnit: number, value: unknown) => w.entry(periodUnit, value);

/** The stored activities of the site, in list order, read directly. */
const stored = () =>
  t.database.tenant(w.tenant.organizationId, (tx) =>
    tx
      .selectFrom('activities')
      .select(['id', 'period_unit', 'position', 'input', 'value'])
      .where('site_id', '=', w.site)
      .orderBy('period_unit')
      .orderBy('position')
      .execute(),
  );
const numericValue = (valueId: string) =>
  t.database.tenant(w.tenant.organizationId, (tx) =>
    tx
      .selectFrom('form_element_submissions')
      .select(['numeric_value', 'status', 'deleted_at'])
      .where('id', '=', valueId)
      .executeTakeFirstOrThrow(),
  );
const historyOf = (activityId: string) =>
  t.database.tenant(w.tenant.organizationId, (tx) =>
    tx
      .selectFrom('activity_history')
      .select(['action', 'before', 'after', 'user_id'])
      .where('activity_id', '=', activityId)
      .orderBy('seq')
      .execute(),
  );

beforeAll(async () => {
  const tenant = await buildTenant(t);
  // Through the API: the inputs' editor options are checked when values are.
  const definition = await client(t).post('/activity-definitions', {
    token: tenant.manager.token,
    body: {
      name: 'Fuel',
      key: 'fuel',
      uiCode: '',
      calcCode: [
        "if (inputs.litres === 13) throw new Error('unlucky litres');",
        "const factor = inputs.fuelType === 'diesel' ? 2 : 3;",
        'return { value: inputs.litres * factor, metadata: { factor, note: inputs.note ?? null } };',
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
        { name: 'note', type: 'string' },
      ],
    },
  });
  w = await createActivityWorld(t, {
    tenant,
    site: { name: 'Depot', assign: ['collector'] },
    definition: { id: definition.json().id, key: 'fuel', tenant },
    moreElements: [{ key: 'amount', label: 'Amount', type: 'NUMBER' }],
  });
});

describe('POST /form-submissions with ACTIVITY values', () => {
  it('stores one activity per input, the list as the value and the sum as its number', async () => {
    const res = await submit([
      fuel(1, [
        { fuelType: 'diesel', litres: 10 },
        { fuelType: 'petrol', litres: 1, note: null },
      ]),
    ]);

    expect(res.status).toBe(200);
    const [item] = res.body.values;
    expect(item.value).toEqual([
      { fuelType: 'diesel', litres: 10 },
      { fuelType: 'petrol', litres: 1 },
    ]);
    expect(item.activities.map((a: any) => a.value)).toEqual([20, 3]);
    expect((await numericValue(item.formElementSubmissionId)).numeric_value).toBe(23);
    const rows = (await stored()).filter((r) => r.period_unit === 1);
    expect(rows.map((r) => [r.position, r.value])).toEqual([
      [0, 20],
      [1, 3],
    ]);
    expect(await historyOf(rows[0]!.id)).toEqual([
      {
        action: 'CREATE',
        before: null,
        after: { input: { fuelType: 'diesel', litres: 10 }, value: 20, metadata: { factor: 2, note: null } },
        user_id: w.tenant.collector.userId,
      },
    ]);
  });

  it('replaces the list by position: same ids for kept positions, surplus removed, unchanged not rewritten', async () => {
    const first = await submit([
      fuel(2, [
        { fuelType: 'diesel', litres: 1 },
        { fuelType: 'diesel', litres: 2 },
        { fuelType: 'diesel', litres: 3 },
      ]),
    ]);
    const ids = first.body.values[0].activities.map((a: any) => a.activityId);

    const second = await submit([
      fuel(2, [
        { fuelType: 'diesel', litres: 1 },
        { fuelType: 'petrol', litres: 2 },
      ]),
    ]);

    expect(second.status).toBe(200);
    expect(second.body.values[0].activities).toEqual([
      {
        activityId: ids[0],
        input: { fuelType: 'diesel', litres: 1 },
        value: 2,
        metadata: expect.any(Object),
      },
      {
        activityId: ids[1],
        input: { fuelType: 'petrol', litres: 2 },
        value: 6,
        metadata: expect.any(Object),
      },
    ]);
    const rows = (await stored()).filter((r) => r.period_unit === 2);
    expect(rows.map((r) => r.id)).toEqual([ids[0], ids[1]]);
    expect((await historyOf(ids[0])).map((h) => h.action)).toEqual(['CREATE']);
    expect((await historyOf(ids[1])).map((h) => h.action)).toEqual(['CREATE', 'UPDATE']);
    expect(await historyOf(ids[2])).toMatchObject([
      { action: 'CREATE' },
      { action: 'DELETE', before: { input: { fuelType: 'diesel', litres: 3 }, value: 6 }, after: null },
    ]);
    expect((await numericValue(first.body.values[0].formElementSubmissionId)).numeric_value).toBe(8);
  });

  it('deletes the activities with the value on null, and stores an empty list with no activities', async () => {
    const created = await submit([fuel(3, [{ fuelType: 'diesel', litres: 5 }])]);
    const valueId = created.body.values[0].formElementSubmissionId;

    const deleted = await submit([fuel(3, null)]);
    expect(deleted.status).toBe(200);
    expect(deleted.body.values[0]).toMatchObject({
      value: null,
      activities: [],
      deletedAt: expect.any(String),
    });
    expect((await stored()).filter((r) => r.period_unit === 3)).toEqual([]);

    const empty = await submit([fuel(3, [])]);
    expect(empty.body.values[0]).toMatchObject({
      formElementSubmissionId: valueId,
      value: [],
      activities: [],
    });
    expect(await numericValue(valueId)).toMatchObject({ numeric_value: 0, deleted_at: null });
  });

  it('leaves a deletion of a period with nothing stored out of the answer', async () => {
    const res = await submit([fuel(9, null), fuel(10, [{ fuelType: 'petrol', litres: 2 }])]);
    expect(res.status).toBe(200);
    expect(res.body.values).toEqual([
      expect.objectContaining({
        formElementSubmissionId: expect.any(String),
        periodUnit: 10,
        status: 'COMPLETED',
        activities: [
          {
            activityId: expect.any(String),
            input: { fuelType: 'petrol', litres: 2 },
            value: 6,
            metadata: expect.any(Object),
          },
        ],
      }),
    ]);
    expect((await stored()).filter((r) => r.period_unit === 9)).toEqual([]);
  });

  it('refuses a value that is not a list, naming the value', async () => {
    const res = await submit([fuel(4, { fuelType: 'diesel', litres: 1 })]);
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path: 'values.0.value', message: expect.stringMatching(/array/) }]);
  });

  it('checks each input against the definition, naming values.N.value.M.<input>', async () => {
    const res = await submit([
      { elementKey: 'amount', periodUnit: 4, value: 1 },
      fuel(4, [
        { fuelType: 'diesel', litres: 1 },
        { fuelType: 'coal', litres: '2' },
        { litres: 3, colour: 'red' },
        'diesel',
      ]),
    ]);

    expect(res.status).toBe(400);
    expect(res.body.issues.map((i: any) => i.path)).toEqual([
      'values.1.value.1.fuelType',
      'values.1.value.1.litres',
      'values.1.value.2.colour',
      'values.1.value.2.fuelType',
      'values.1.value.3',
    ]);
    expect((await stored()).filter((r) => r.period_unit === 4)).toEqual([]);
  });

  it('refuses the whole request when a calculation fails, naming the value and input index', async () => {
    const res = await submit([
      { elementKey: 'amount', periodUnit: 5, value: 7 },
      fuel(5, [
        { fuelType: 'diesel', litres: 1 },
        { fuelType: 'diesel', litres: 13 },
      ]),
    ]);

    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([
      {
        path: 'values.1.value.1',
        message: expect.stringMatching(/values\.1\.value\.1: .*unlucky litres/),
        code: 'activity.calculationFailed',
        params: { label: expect.any(String), detail: expect.stringMatching(/unlucky litres/) },
      },
    ]);
    const values = await t.database.tenant(w.tenant.organizationId, (tx) =>
      tx.selectFrom('form_element_submissions').select('id').where('period_unit', '=', 5).execute(),
    );
    expect(values).toEqual([]);
  });

  it('refuses an ACTIVITY element whose definition the organization can no longer see', async () => {
    const hidden = (await buildActivityDefinition(t, { isCommon: true })).id;
    const shared = await buildForm(t, {
      tenant: w.tenant,
      elements: [{ key: 'shared', label: 'Shared', type: 'ACTIVITY', activityDefinitionId: hidden }],
    });
    await buildFormSites(t, { form: shared, sites: [w.site] });
    await t.database.system((tx) =>
      tx.updateTable('activity_definitions').set({ is_common: false }).where('id', '=', hidden).execute(),
    );

    const res = await w.api.post('/form-submissions', {
      token: w.tenant.collector.token,
      body: {
        formId: shared.id,
        siteId: w.site,
        year: 2025,
        values: [{ elementKey: 'shared', periodUnit: 1, value: [{ amount: 1 }] }],
      },
    });

    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([
      { path: 'values.0.value', message: expect.stringMatching(/no longer available/) },
    ]);
  });

  it('removes a no-activity marker of the period when activities are written there', async () => {
    const marker = { formId: w.form.id, key: 'fuel', siteId: w.site, year: 2025, periodUnit: 6 };
    const marked = await w.api.post('/activities/no-activity/mark', {
      token: w.tenant.collector.token,
      body: marker,
    });
    expect(marked.status).toBe(200);

    await submit([fuel(6, [{ fuelType: 'petrol', litres: 1 }])]);

    const list = await w.list('&periodUnits=6', w.tenant.collector.token);
    expect(list.json().noActivity).toEqual([]);
    expect(list.json().activities).toHaveLength(1);
  });

  it('calculates a list of 300 activities in one request', async () => {
    const many = Array.from({ length: 300 }, (_, i) => ({ fuelType: 'diesel', litres: i + 100 }));

    const res = await submit([fuel(7, many)]);

    expect(res.status).toBe(200);
    expect(res.body.values[0].activities).toHaveLength(300);
    expect(res.body.values[0].activities[299].value).toBe(2 * 399);
  });

  it('writes the new sum of a list sent again unchanged after its calcCode changed, with no new history', async () => {
    const tenant = w.tenant;
    const org = tenant.organizationId;
    const built = await buildActivityForm(t, {
      tenant,
      definition: {
        key: 'renumbered',
        inputs: [{ name: 'n', type: 'number', required: true }],
        calcCode: 'return inputs.n * 2',
      },
      key: 'act',
      sites: [w.site],
      years: [2025],
    });
    const definition = built.definition.id;
    const send = () =>
      client(t).post('/form-submissions', {
        token: tenant.collector.token,
        body: {
          formId: built.form.id,
          siteId: w.site,
          year: 2025,
          values: [{ elementKey: 'act', periodUnit: 1, value: [{ n: 5 }, { n: 1 }] }],
        },
      });
    const first = await send();
    expect(first.status).toBe(200);
    const valueId = first.body.values[0].formElementSubmissionId;
    expect((await numericValue(valueId)).numeric_value).toBe(12);

    await t.database.tenant(org, (tx) =>
      tx
        .updateTable('activity_definitions')
        .set({ calc_code: 'return inputs.n * 3' })
        .where('id', '=', definition)
        .execute(),
    );
    const second = await send();
    expect(second.status).toBe(200);
    expect(second.body.values[0].activities.map((a: { value: number }) => a.value)).toEqual([15, 3]);
    expect((await numericValue(valueId)).numeric_value).toBe(18);
    const history = await t.database.tenant(org, (tx) =>
      tx.selectFrom('form_value_history').select('action').where('value_id', '=', valueId).execute(),
    );
    expect(history.map((h) => h.action)).toEqual(['CREATE']);
  });
});
