import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { createRulesWorld, type RulesWorld } from '../../../test/helpers/rules-world.ts';

const t = useTestApp();
let w: RulesWorld;

beforeAll(async () => {
  w = await createRulesWorld(t);
});

const value = (elementKey: string, v: unknown, extra: Record<string, unknown> = {}) => ({
  values: [{ elementKey, periodUnit: 3, value: v, ...extra }],
});

/** The one issue of a 400, as {path, message}. */
async function refusal(body: Record<string, unknown>) {
  const res = await w.submit(body);
  expect(res.status).toBe(400);
  expect(res.body.issues).toHaveLength(1);
  return res.body.issues[0];
}

describe('submissions: the hard rules of elements (issue 42)', () => {
  it('accepts a NUMBER at its limits and refuses one past them, naming the element by its label', async () => {
    expect((await w.submit(value('elec', 0))).status).toBe(200);
    expect((await w.submit(value('elec', 1000))).status).toBe(200);
    expect(await refusal(value('elec', -0.001))).toMatchObject({
      path: 'values.0.value',
      message: 'Electricity must be at least 0 kWh',
    });
    expect(await refusal(value('elec', 1000.5))).toMatchObject({
      path: 'values.0.value',
      message: 'Electricity must be at most 1000 kWh',
      // The app says it in the person's language from the code and the raw figures (decision 225).
      code: 'value.aboveMaximum',
      params: expect.objectContaining({ max: 1000, value: 1000.5, unit: 'kWh' }),
    });
  });

  it('compares after converting to the element’s unit: 1.2 MWh is refused, 0.9 and 1 MWh are stored', async () => {
    const mwh = { selectedUnitId: w.units['MWh'] };
    expect(await refusal(value('elec', 1.2, mwh))).toMatchObject({
      path: 'values.0.value',
      message: 'Electricity must be at most 1000 kWh (1.2 MWh is 1200 kWh)',
    });
    const below = await w.submit(value('elec', 0.9, mwh));
    expect(below.status).toBe(200);
    expect(below.body.values[0]).toMatchObject({ value: 900, originalValue: 0.9 });
    const at = await w.submit(value('elec', 1, mwh));
    expect(at.status).toBe(200);
    expect(at.body.values[0]).toMatchObject({ value: 1000, originalValue: 1 });
  });

  it('refuses a fraction where only whole numbers are allowed', async () => {
    expect((await w.submit(value('head', 42))).status).toBe(200);
    expect((await w.submit(value('head', -3))).status).toBe(200);
    expect(await refusal(value('head', 42.5))).toMatchObject({
      path: 'values.0.value',
      message: 'Headcount must be a whole number',
    });
  });

  it('accepts a DATE on the first and last day of its period and refuses one outside', async () => {
    expect((await w.submit(value('invoice', '2025-03-01'))).status).toBe(200);
    expect((await w.submit(value('invoice', '2025-03-31'))).status).toBe(200);
    expect(await refusal(value('invoice', '2025-04-01'))).toMatchObject({
      path: 'values.0.value',
      message: 'Invoice date must be within March 2025 (2025-03-01 to 2025-03-31); 2025-04-01 is not',
    });
    expect((await refusal(value('invoice', '2025-02-28'))).path).toBe('values.0.value');
  });

  it('refuses a TIMESTAMP outside the year of the submission', async () => {
    const ok = await w.submit({
      values: [{ elementKey: 'event', timestamp: '2025-12-31T23:59:59Z', value: 1 }],
    });
    expect(ok.status).toBe(200);
    expect(
      await refusal({ values: [{ elementKey: 'event', timestamp: '2026-01-01T00:00:00Z', value: 1 }] }),
    ).toMatchObject({
      path: 'values.0.timestamp',
      message:
        'Refuel time must be within 2025 (2025-01-01 to 2025-12-31, UTC); 2026-01-01T00:00:00.000Z is not',
    });
  });

  it('refuses an activity whose date input is outside the value’s period, naming the input', async () => {
    const ok = await w.submit(value('fuel', [{ amount: 1, day: '2025-03-31' }, { amount: 2 }]));
    expect(ok.status).toBe(200);
    const issue = await refusal(
      value('fuel', [
        { amount: 1, day: '2025-03-15' },
        { amount: 2, day: '2025-07-04' },
      ]),
    );
    expect(issue).toMatchObject({
      path: 'values.0.value.1.day',
      message: 'Refuels: day must be within March 2025 (2025-03-01 to 2025-03-31); 2025-07-04 is not',
    });
  });

  it('refuses the whole request when one value breaks a rule: nothing is stored', async () => {
    const res = await w.submit({
      values: [
        { elementKey: 'head', periodUnit: 5, value: 7 },
        { elementKey: 'elec', periodUnit: 5, value: 5000 },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(['values.1.value']);
    const stored = await t.database.system((tx) =>
      tx
        .selectFrom('form_element_submissions')
        .select('id')
        .where('organization_id', '=', w.tenant.organizationId)
        .where('period_unit', '=', 5)
        .execute(),
    );
    expect(stored).toEqual([]);
  });

  it('does not rewrite stored values when a rule changes', async () => {
    expect((await w.submit({ values: [{ elementKey: 'head', periodUnit: 6, value: 7 }] })).status).toBe(200);
    const before = await t.database.system((tx) =>
      tx
        .selectFrom('form_element_submissions')
        .select(['value', 'recorded_at'])
        .where('organization_id', '=', w.tenant.organizationId)
        .where('period_unit', '=', 6)
        .executeTakeFirstOrThrow(),
    );
    const elements = (w.form['elements'] as Record<string, unknown>[]).map((e) =>
      e['key'] === 'head' ? { ...e, minValue: 100 } : e,
    );
    const { api } = await import('../../../test/helpers/app.ts');
    const put = await api(t, 'PUT', `/forms/${w.form.id}`, {
      token: w.tenant.owner.token,
      body: {
        name: 'Energy',
        periodType: 'MONTHLY',
        elements: elements.map(
          ({
            id,
            key,
            label,
            type,
            unitId,
            activityDefinitionId,
            minValue,
            maxValue,
            integer,
            warnChangeFactor,
          }) => ({
            id,
            key,
            label,
            type,
            unitId,
            activityDefinitionId,
            minValue,
            maxValue,
            integer,
            warnChangeFactor,
          }),
        ),
      },
    });
    expect(put.status).toBe(200);
    const after = await t.database.system((tx) =>
      tx
        .selectFrom('form_element_submissions')
        .select(['value', 'recorded_at'])
        .where('organization_id', '=', w.tenant.organizationId)
        .where('period_unit', '=', 6)
        .executeTakeFirstOrThrow(),
    );
    expect(after).toEqual(before);
    // New writes follow the new rule.
    expect(await refusal({ values: [{ elementKey: 'head', periodUnit: 6, value: 8 }] })).toMatchObject({
      path: 'values.0.value',
      message: 'Headcount must be at least 100',
    });
  });
});

describe('submissions: refusals in plain words (issue 42)', () => {
  it('names the site by its name, not its id', async () => {
    const { createSite } = await import('../../../test/helpers/factories.ts');
    const { api } = await import('../../../test/helpers/app.ts');
    const depot = await createSite(t, w.tenant.organizationId, { name: 'Depot' });
    const submitted = await w.submit({ siteId: depot, values: [] });
    expect(submitted.status).toBe(403);
    expect(submitted.body.issues).toMatchObject([{ message: 'You cannot report for Depot' }]);
    const listed = await api(t, 'GET', `/form-submissions?siteId=${depot}`, {
      token: w.tenant.collector.token,
    });
    expect(listed.status).toBe(403);
    expect(listed.body.issues).toMatchObject([{ message: 'You cannot read the data of Depot' }]);
    expect(JSON.stringify([submitted.body, listed.body])).not.toContain(depot);
  });

  it('names a locked value by its element’s label and period, without the lock’s id', async () => {
    const { api } = await import('../../../test/helpers/app.ts');
    const lock = await api(t, 'POST', '/form-locks', {
      token: w.tenant.owner.token,
      body: { formId: w.form.id, year: 2025, periodUnit: 11, siteIds: [w.site] },
    });
    expect(lock.status).toBe(200);
    const res = await w.submit({ values: [{ elementKey: 'elec', periodUnit: 11, value: 1 }] });
    expect(res.status).toBe(400);
    expect(res.body.issues).toMatchObject([
      { path: 'values.0', message: 'Electricity for November 2025 is locked: closed for reporting' },
    ]);
  });

  it('does not repeat an unknown element key in the message (the path names the field)', async () => {
    expect(await refusal({ values: [{ elementKey: 'elecc', periodUnit: 1, value: 1 }] })).toMatchObject({
      path: 'values.0.elementKey',
      message: 'values.0.elementKey names no element of this form',
    });
  });
});
