import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useWebhookApp } from '../../../test/helpers/webhook-app.ts';
import { Database } from '../../db/client.ts';
import { type ClaimedJob, JobRunner, PermanentJobError } from './index.ts';
import { jobsRepository } from './jobs.repository.ts';

const t = useWebhookApp({ metricsToken: 'metrics-token-0123456789' });
let other: Database;
let now = new Date('2030-01-01T00:00:00Z');
const clock = () => now;

beforeAll(async () => {
  // PostgreSQL: a second pool on the same database, as a second process has; PGlite: the one database.
  other = t.url ? await Database.open({ databaseUrl: t.url }) : t.database;
});
afterAll(async () => {
  if (other !== t.database) await other.close();
});

const enqueue = (kind: string, count: number, maxAttempts = 3) =>
  t.database.system((tx) =>
    jobsRepository.insert(
      tx,
      Array.from({ length: count }, (_, i) => ({
        kind,
        organizationId: null,
        payload: { n: i },
        maxAttempts,
        runAfter: now,
      })),
    ),
  );

const stateOf = async (id: string) =>
  (
    await t.database.system((tx) =>
      sql<{ state: string; attempts: number; last_error: string | null }>`
        SELECT state, attempts, last_error FROM jobs WHERE id = ${id}`.execute(tx),
    )
  ).rows[0]!;

describe('the job queue', () => {
  it('runs each job once when two workers on two connections claim at the same time', async () => {
    const ids = await enqueue('test.once', 40);
    const ran: string[] = [];
    const handler = async (job: ClaimedJob) => {
      ran.push(job.id);
      await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const a = new JobRunner(t.database, clock, { worker: 'a', batch: 3 }).handle('test.once', handler);
    const b = new JobRunner(other, clock, { worker: 'b', batch: 3 }).handle('test.once', handler);
    await Promise.all([a.drain(), b.drain()]);
    expect(ran.sort()).toEqual([...ids].sort());
    for (const id of ids) expect((await stateOf(id)).state).toBe('done');
  });

  it('keeps the lease of a job that runs longer than it while its worker lives (decision 234)', async () => {
    const [id] = await enqueue('test.renew', 1);
    let claimedByB = -1;
    const b = new JobRunner(other, clock, { worker: 'b', leaseMs: 60 }).handle('test.renew', async () => {});
    const a = new JobRunner(t.database, clock, { worker: 'a', leaseMs: 60 }).handle(
      'test.renew',
      async () => {
        // The claim's lease (60 ms of the test's clock) has run out by now, unless A renewed it: A
        // does every 20 ms (of real time) while the job runs, to the clock's time plus the lease.
        now = new Date(now.getTime() + 100);
        await new Promise((resolve) => setTimeout(resolve, 150));
        claimedByB = await b.runOnce();
      },
    );
    expect(await a.runOnce()).toBe(1);
    expect(claimedByB).toBe(0);
    expect(await stateOf(id!)).toMatchObject({ state: 'done', attempts: 1 });
  });

  it('gives a job whose worker died to another worker once its lease ran out, and not before', async () => {
    const [id] = await enqueue('test.lease', 1);
    // A worker claims it and dies before finishing (nothing ends the attempt).
    const claimed = await t.database.system((tx) =>
      jobsRepository.claim(tx, ['test.lease'], 'dead', now, new Date(now.getTime() + 60_000), 10),
    );
    expect(claimed.map((j) => j.id)).toEqual([id]);
    const ran: number[] = [];
    const b = new JobRunner(other, clock, { worker: 'b' }).handle('test.lease', async (job) => {
      ran.push(job.attempts);
    });
    now = new Date(now.getTime() + 59_000);
    expect(await b.drain()).toBe(0);
    now = new Date(now.getTime() + 1_000);
    expect(await b.drain()).toBe(1);
    expect(ran).toEqual([2]);
    expect((await stateOf(id!)).state).toBe('done');
    // The dead worker's late answer changes nothing.
    const late = await t.database.system((tx) =>
      jobsRepository.finish(tx, claimed[0]!, 'dead', { state: 'failed', error: 'late' }, now),
    );
    expect(late).toBe(false);
    expect((await stateOf(id!)).state).toBe('done');
  });

  it('retries a failing job after 5 s, then 20 s, and leaves it failed after its last attempt', async () => {
    const [id] = await enqueue('test.retry', 1, 3);
    let calls = 0;
    const runner = new JobRunner(t.database, clock).handle('test.retry', async () => {
      calls++;
      throw new Error(`attempt ${calls} failed`);
    });
    expect(await runner.drain()).toBe(1);
    expect(await stateOf(id!)).toMatchObject({
      state: 'queued',
      attempts: 1,
      last_error: 'attempt 1 failed',
    });
    now = new Date(now.getTime() + 4_999);
    expect(await runner.drain()).toBe(0);
    now = new Date(now.getTime() + 1);
    expect(await runner.drain()).toBe(1);
    now = new Date(now.getTime() + 20_000);
    expect(await runner.drain()).toBe(1);
    expect(await stateOf(id!)).toMatchObject({
      state: 'failed',
      attempts: 3,
      last_error: 'attempt 3 failed',
    });
    now = new Date(now.getTime() + 86_400_000);
    expect(await runner.drain()).toBe(0);
  });

  it('runs a recurring job once per slot across two workers', async () => {
    const ran: string[] = [];
    const make = (db: Database, worker: string) =>
      new JobRunner(db, clock, { worker }).every('test.hourly', 3_600_000, async () => {
        ran.push(worker);
      });
    const a = make(t.database, 'a');
    const b = make(other, 'b');
    now = new Date(Math.ceil(now.getTime() / 3_600_000) * 3_600_000 + 60_000);
    await Promise.all([a.drain(), b.drain()]);
    await Promise.all([a.drain(), b.drain()]);
    expect(ran).toHaveLength(1);
    now = new Date(now.getTime() + 30 * 60_000);
    await Promise.all([a.drain(), b.drain()]);
    expect(ran).toHaveLength(1);
    now = new Date(now.getTime() + 30 * 60_000);
    await Promise.all([b.drain(), a.drain()]);
    expect(ran).toHaveLength(2);
  });

  it('does not retry a permanent failure, and shows jobs by kind and state in /metrics', async () => {
    const [id] = await enqueue('test.permanent', 1, 5);
    const runner = new JobRunner(t.database, clock).handle('test.permanent', async () => {
      throw new PermanentJobError('gone');
    });
    await runner.drain();
    expect(await stateOf(id!)).toMatchObject({ state: 'failed', attempts: 1 });
    const res = await t.app.inject({
      url: '/metrics',
      headers: { authorization: 'Bearer metrics-token-0123456789' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('sdcs_jobs{kind="test.permanent",state="failed"} 1');
    expect(res.body).toContain('sdcs_jobs{kind="test.once",state="done"} 40');
  });
});
