import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createSite } from '../../../test/helpers/factories.ts';
import { createRulesWorld, type RulesWorld } from '../../../test/helpers/rules-world.ts';

const t = useTestApp();
let w: RulesWorld;
const CHECK = '/form-submissions/check';

/** Rows of every table a submission writes, for the organization. */
async function counts() {
  const org = w.tenant.organizationId;
  return t.database.system(async (tx) => {
    const count = async (
      table: 'form_submissions' | 'form_element_submissions' | 'form_value_history' | 'activities',
    ) =>
      Number(
        (
          await tx
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('organization_id', '=', org)
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      submissions: await count('form_submissions'),
      values: await count('form_element_submissions'),
      history: await count('form_value_history'),
      activities: await count('activities'),
    };
  });
}

beforeAll(async () => {
  w = await createRulesWorld(t);
});

describe('POST /form-submissions/check', () => {
  it('answers every problem of the values as an invalid issue and stores nothing', async () => {
    const before = await counts();
    const res = await w.submit(
      {
        values: [
          { elementKey: 'elec', periodUnit: 3, value: 12 },
          { elementKey: 'elec', periodUnit: 4, value: -40 },
          { elementKey: 'nope', periodUnit: 3, value: 1 },
          { elementKey: 'head', periodUnit: 3, value: 'many' },
          { elementKey: 'fuel', periodUnit: 3, value: [{ amount: 1, day: '2026-03-01' }] },
        ],
      },
      CHECK,
    );
    expect(res.status).toBe(200);
    expect(res.body.issues).toEqual([
      {
        type: 'invalid',
        path: 'values.1.value',
        message: 'Electricity must be at least 0 kWh',
        // The finding's code and raw params, for the app to say it in the person's language.
        code: 'value.belowMinimum',
        params: expect.objectContaining({ min: 0, value: -40, unit: 'kWh' }),
      },
      {
        type: 'invalid',
        path: 'values.2.elementKey',
        message: expect.any(String),
        code: 'value.elementUnknown',
      },
      { type: 'invalid', path: 'values.3.value', message: expect.any(String), code: 'value.notNumber' },
      {
        type: 'invalid',
        path: 'values.4.value.0.day',
        message: 'Refuels: day must be within March 2025 (2025-03-01 to 2025-03-31); 2026-03-01 is not',
      },
    ]);
    expect(await counts()).toEqual(before);
  });

  it('answers no issue for a body a submission would store, and still stores nothing', async () => {
    const before = await counts();
    const res = await w.submit(
      {
        values: [
          { elementKey: 'elec', periodUnit: 3, value: 12 },
          { elementKey: 'fuel', periodUnit: 3, value: [{ amount: 1, day: '2025-03-02' }] },
          { elementKey: 'invoice', periodUnit: 3, value: '2025-03-02' },
        ],
      },
      CHECK,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ issues: [] });
    expect(await counts()).toEqual(before);
  });

  it('reports a locked period as an invalid issue of the value', async () => {
    const lock = await api(t, 'POST', '/form-locks', {
      token: w.tenant.owner.token,
      body: { formId: w.form.id, year: 2025, periodUnit: 9 },
    });
    expect(lock.status).toBe(200);
    const res = await w.submit({ values: [{ elementKey: 'elec', periodUnit: 9, value: 1 }] }, CHECK);
    expect(res.status).toBe(200);
    expect(res.body.issues).toHaveLength(1);
    expect(res.body.issues[0]).toMatchObject({ type: 'invalid', path: 'values.0' });
    // The submission itself is refused for the same reason.
    expect((await w.submit({ values: [{ elementKey: 'elec', periodUnit: 9, value: 1 }] })).status).toBe(400);
  });

  it('refuses as a submission does: 400 for a body that is no submission, 403 for a site or role', async () => {
    const notABody = await api(t, 'POST', CHECK, { token: w.tenant.collector.token, body: { values: [] } });
    expect(notABody.status).toBe(400);
    const elsewhere = await createSite(t, w.tenant.organizationId, { name: 'Depot' });
    const site = await w.submit({ siteId: elsewhere, values: [] }, CHECK);
    const submitted = await w.submit({ siteId: elsewhere, values: [] });
    expect(site.status).toBe(submitted.status);
    expect(site.body).toEqual(submitted.body);
    const viewer = await w.submit({ values: [] }, CHECK, w.tenant.viewer.token);
    expect(viewer.status).toBe(403);
    const anonymous = await api(t, 'POST', CHECK, {
      body: { formId: w.form.id, siteId: w.site, year: 2025, values: [] },
    });
    expect(anonymous.status).toBe(401);
  });
});
