import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActivityWorld, createActivityWorld } from '../../../test/helpers/activity-world.ts';
import { useTestApp } from '../../../test/helpers/app.ts';
import { shutdownSandbox, warmSandbox } from '../../sandbox/index.ts';

// Calculation load: one organization's runaway calculations must not stall another's requests.
// A calculation never runs while a transaction holds a connection (on PGlite, the only one), the
// sandbox workers take the organizations' queues in turn, a definition that keeps hitting the
// time limit fails the rest of the request at once, and a request's calculations have a budget.
const BUDGET_MS = 1500;
const t = useTestApp({ calcRequestBudgetMs: BUDGET_MS });

/** An organization whose collector enters activities of `calcCode` on a yearly form. */
const world = (calcCode: string) =>
  createActivityWorld(t, {
    site: { name: 'Plant', assign: ['collector', 'manager'] },
    definition: { calcCode },
    key: 'fuel',
    periodType: 'YEARLY',
  });

const submit = (w: ActivityWorld, count: number) => w.submit([w.entry(1, amounts(count))]);
const amounts = (count: number) => Array.from({ length: count }, (_, i) => ({ amount: i }));

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await fn();
  return { ms: performance.now() - started, result };
}

/** Runs B's requests (GET /me, a 1-activity submission) while A's request is under way. */
async function whileRunning(a: Promise<unknown>, b: ActivityWorld) {
  // Let A's request get into its calculations first.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const me = await timed(() => b.api.get('/me', { token: b.tenant.collector.token }));
  const one = await timed(() => submit(b, 1));
  if (process.env.SDCS_LOAD_REPORT)
    console.log(`B: GET /me ${me.ms.toFixed(0)} ms, 1-activity submission ${one.ms.toFixed(0)} ms`);
  let aDone = false;
  void a.then(() => {
    aDone = true;
  });
  await Promise.resolve();
  return { me, one, aStillRunning: !aDone };
}

let runaway: ActivityWorld;
let recalculated: ActivityWorld;
let busy: ActivityWorld;
let quick: ActivityWorld;

beforeAll(async () => {
  // As the server does at start-up: no request pays for starting the workers.
  await warmSandbox();
  runaway = await world('while (true) {}');
  // Under the time limit each, but many: only the request's budget stops it.
  // A few milliseconds per calculation, far under the 50 ms time limit even when the machine is
  // shared (at 200,000 iterations a loaded CI run hit the limit, and the request ended early by the
  // skip rule instead of its budget); 1,000 of them still outlast the budget on any machine.
  busy = await world('let x = 0; for (let i = 0; i < 100000; i++) x += i % 7; return 1');
  quick = await world('return inputs.amount * 2');
  recalculated = await world('return 1');
  const seeded = await submit(recalculated, 200);
  expect(seeded.body).toMatchObject({ values: [{}] });
  await t.database.tenant(recalculated.tenant.organizationId, (tx) =>
    tx
      .updateTable('activity_definitions')
      .set({ calc_code: 'while (true) {}' })
      .where('id', '=', recalculated.definition.id)
      .execute(),
  );
  // Warm up: the workers and the quick definition's first run.
  expect((await submit(quick, 1)).status).toBe(200);
});

afterAll(() => shutdownSandbox());

describe('calculation load', () => {
  it('a runaway definition fails the rest of its activities at once, naming the value index', async () => {
    const { ms, result } = await timed(() => submit(runaway, 1000));
    expect(result.status).toBe(400);
    const messages: string[] = result.body.issues.map((i: { message: string }) => i.message);
    expect(messages).toHaveLength(1000);
    expect(messages.filter((m) => m.includes('timed out'))).not.toHaveLength(0);
    expect(messages.at(-1)).toMatch(
      /^values\.0\.value\.999: the calculation failed: skipped: \d+ calculations of this definition hit the time limit in this request$/,
    );
    // ~59 s before (1,000 × the time limit); now a few calculations' worth.
    expect(ms).toBeLessThan(5000);
  });

  it('another organization stays fast while a runaway request calculates', async () => {
    const a = submit(runaway, 1000);
    const { me, one } = await whileRunning(a, quick);
    expect(me.result.status).toBe(200);
    expect(one.result.status).toBe(200);
    expect(one.result.json().values[0]!.activities).toHaveLength(1);
    expect(me.ms).toBeLessThan(1000);
    expect(one.ms).toBeLessThan(1500);
    expect((await a).status).toBe(400);
  });

  it('a request stops at its calculation budget, and others are served meanwhile', async () => {
    const started = performance.now();
    const a = submit(busy, 1000);
    const { me, one, aStillRunning } = await whileRunning(a, quick);
    expect(me.result.status).toBe(200);
    expect(one.result.status).toBe(200);
    const answer = await a;
    const elapsed = performance.now() - started;
    expect(answer.status).toBe(400);
    const messages: string[] = answer.body.issues.map((i: { message: string }) => i.message);
    expect(messages.at(-1)).toMatch(
      /^values\.0\.value\.999: the calculation failed: (not run: this request's calculation time \(1500 ms in all\) is used up|skipped: .*)$/,
    );
    // B was answered while A was still calculating, and much faster than A.
    expect(aStillRunning).toBe(true);
    expect(one.ms).toBeLessThan(1500);
    expect(elapsed).toBeLessThan(BUDGET_MS + 5000);
  });

  it('recalculating a runaway definition fails fast, and others are served meanwhile', async () => {
    const recalc = () =>
      recalculated.api.post(`/activity-definitions/${recalculated.definition.id}/recalculate`, {
        token: recalculated.tenant.manager.token,
      });
    const { ms, result } = await timed(async () => {
      const a = recalc();
      const b = await whileRunning(a, quick);
      expect(b.me.result.status).toBe(200);
      expect(b.one.result.status).toBe(200);
      expect(b.me.ms).toBeLessThan(1000);
      expect(b.one.ms).toBeLessThan(1500);
      return a;
    });
    expect(result.status).toBe(200);
    expect(result.json()).toMatchObject({ recalculated: 0, changed: 0, failed: 200 });
    expect(result.json().failures.at(-1)!.message).toMatch(
      /^skipped: \d+ calculations of this definition hit the time limit/,
    );
    // 200 × the time limit (~12 s) before.
    expect(ms).toBeLessThan(5000);
  });
});
