import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActivityWorld, createActivityWorld } from '../../../test/helpers/activity-world.ts';
import { openTestDatabase, type TestContext, testConfig } from '../../../test/helpers/app.ts';
import { buildApp } from '../../app.ts';
import type { Tx } from '../../db/client.ts';
import { conflict } from '../../domain/errors.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';
import type { TenantRun, ValueSlot } from '../values/element-types.ts';
import { CalcSession, calculateThenWrite } from './activities.calculate.ts';

// Slot guards (e.g. the completeness module's period lock) run in the write transaction before
// anything is written, on every path that changes values or activities.
const t = {} as TestContext;
let drop: () => Promise<void>;
const seen: ValueSlot[][] = [];
let locked: { period: number } | null = null;

let w: ActivityWorld;

const submit = (periodUnit: number, value: unknown) => w.submit([w.entry(periodUnit, value)]);
const countActivities = () =>
  t.database.tenant(w.tenant.organizationId, async (tx) => {
    const rows = await tx.selectFrom('activities').select('id').execute();
    return rows.length;
  });

beforeAll(async () => {
  const opened = await openTestDatabase();
  drop = opened.drop;
  t.database = opened.database;
  t.config = testConfig();
  t.app = await buildApp({
    database: t.database,
    config: t.config,
    slotGuards: [
      async (_tx, _org, slots) => {
        seen.push(slots);
        if (locked && slots.some((s) => s.period === locked!.period)) throw conflict('The period is locked');
      },
    ],
  });
  await t.app.ready();
  w = await createActivityWorld(t, {
    site: { name: 'Depot', assign: ['collector', 'manager'] },
    definition: { calcCode: 'return inputs.amount * 2' },
    key: 'fuel',
  });
});

afterAll(async () => {
  await t.app?.close();
  await drop?.();
  await shutdownSandbox();
});

describe('slot guards', () => {
  it('see the slots of a submission and can refuse it before anything is written', async () => {
    seen.length = 0;
    const ok = await submit(1, [{ amount: 1 }]);
    expect(ok.status).toBe(200);
    expect(seen).toEqual([
      [{ formId: w.form.id, siteId: w.site, year: 2025, period: 1, path: 'values.0', label: 'fuel' }],
    ]);

    locked = { period: 2 };
    const refused = await submit(2, [{ amount: 1 }]);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('The period is locked');
    expect(await countActivities()).toBe(1);
  });

  it('guard activity PATCH, no-activity markers and recalculation', async () => {
    locked = null;
    const first = await submit(2, [{ amount: 1 }]);
    const activityId = first.json().values[0]!.activities![0]!.activityId;
    locked = { period: 2 };
    seen.length = 0;
    const patch = await w.api.patch(`/activities/${activityId}`, {
      token: w.tenant.collector.token,
      body: { input: { amount: 5 } },
    });
    expect(patch.status).toBe(409);
    const mark = await w.api.post('/activities/no-activity/mark', {
      token: w.tenant.collector.token,
      body: { formId: w.form.id, key: 'fuel', siteId: w.site, year: 2025, periodUnit: 2 },
    });
    expect(mark.status).toBe(409);
    // Recalculation writes only what changed: change the code so that every activity changes.
    await t.database.system((tx) =>
      tx
        .updateTable('activity_definitions')
        .set({ calc_code: 'return inputs.amount * 3' })
        .where('id', '=', w.definition.id)
        .execute(),
    );
    const recalculate = () =>
      w.api.post(`/activity-definitions/${w.definition.id}/recalculate`, { token: w.tenant.manager.token });
    const recalc = await recalculate();
    expect(recalc.status).toBe(409);
    expect(seen.map((slots) => slots.map((s) => s.period).sort())).toEqual([[2], [2], [1, 2]]);

    locked = null;
    const again = await recalculate();
    expect(again.json()).toMatchObject({ recalculated: 2, changed: 2, failed: 0 });
  });
});

describe('calculate, then write', () => {
  it('answers 409 when what the calculations depended on keeps changing', async () => {
    const run: TenantRun = (fn) => fn(undefined as unknown as Tx);
    const session = new CalcSession('org', run, new AbortController().signal);
    let attempts = 0;
    const source = { id: 'def', calcCode: 'return inputs.n', metadataSchema: null };
    const site = { id: 's', name: 'S', metadata: {} };
    const outcome = calculateThenWrite(session, run, async () => {
      attempts += 1;
      // Each attempt sees another input (as if someone changed it meanwhile): never ready.
      return { jobs: [{ source, input: { n: attempts }, context: { year: 2025, periodUnit: 1, site } }] };
    });
    await expect(outcome).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(attempts).toBe(4);
    await session.dispose();
  });
});
