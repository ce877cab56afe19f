import { afterEach, describe, expect, it } from 'vitest';
import { type HeavyOptions, HeavyWork } from './pool.ts';

const entry = new URL('./pool.test-worker.mjs', import.meta.url);
const pools: HeavyWork[] = [];
const pool = (options: Partial<HeavyOptions> = {}) => {
  const p = new HeavyWork({
    entry,
    workers: 2,
    perOrganization: 1,
    queuePerOrganization: 10,
    memoryBudgetBytes: 1_000,
    jobHeapBytes: 64 * 1024 * 1024,
    ...options,
  });
  pools.push(p);
  return p;
};

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/** Runs the jobs and answers their labels in the order they finished. */
async function order(p: HeavyWork, jobs: { org: string; ms: number; label: string; bytes?: number }[]) {
  const done: string[] = [];
  await Promise.all(
    jobs.map(({ org, ms, label, bytes }) =>
      p
        .run<string>({ organizationId: org, task: 'spin', input: { ms, label }, ...(bytes ? { bytes } : {}) })
        .then((l) => done.push(l)),
    ),
  );
  return done;
}

describe('the heavy-work pool', () => {
  it('runs at most its share of one organization at once, so another organization goes in beside it', async () => {
    const p = pool();
    // Warm both workers (their start-up is not what is measured).
    await Promise.all([
      p.run({ organizationId: 'w1', task: 'spin', input: { ms: 0 } }),
      p.run({ organizationId: 'w2', task: 'spin', input: { ms: 0 } }),
    ]);
    const done = await order(p, [
      { org: 'A', ms: 300, label: 'A1' },
      { org: 'A', ms: 300, label: 'A2' },
      { org: 'A', ms: 300, label: 'A3' },
      { org: 'B', ms: 50, label: 'B1' },
    ]);
    // A's share is one job: B's job takes the second worker at once instead of waiting behind A2, A3.
    expect(done).toEqual(['B1', 'A1', 'A2', 'A3']);
  });

  it('takes the workers in turn across organizations', async () => {
    const p = pool({ workers: 1, perOrganization: 4 });
    await p.run({ organizationId: 'w', task: 'spin', input: { ms: 0 } });
    const done = await order(p, [
      { org: 'A', ms: 100, label: 'A1' },
      { org: 'A', ms: 10, label: 'A2' },
      { org: 'A', ms: 10, label: 'A3' },
      { org: 'B', ms: 10, label: 'B1' },
      { org: 'C', ms: 10, label: 'C1' },
    ]);
    // A1 runs; then A's queue, B's and C's take turns: B and C each wait one job of A, not all of them.
    expect(done).toEqual(['A1', 'A2', 'B1', 'C1', 'A3']);
  });

  it('refuses a job beyond the organization’s queue with 429 and a Retry-After, others still queue', async () => {
    const p = pool({ workers: 1, queuePerOrganization: 1, retryAfterSeconds: 7 });
    const first = p.run({ organizationId: 'A', task: 'spin', input: { ms: 200 } });
    const second = p.run({ organizationId: 'A', task: 'spin', input: { ms: 0 } });
    const third = p.run({ organizationId: 'A', task: 'spin', input: { ms: 0 } });
    const other = p.run({ organizationId: 'B', task: 'spin', input: { ms: 0, label: 'B' } });
    const refusal = await third.catch((e: unknown) => e);
    expect(refusal).toMatchObject({ code: 'TOO_MANY_REQUESTS', status: 429, retryAfterSeconds: 7 });
    expect((refusal as Error).message).toContain('1 large operations waiting');
    await expect(Promise.all([first, second, other])).resolves.toHaveLength(3);
  });

  it('starts no job beyond the memory budget while others run; a job over the budget runs alone', async () => {
    const p = pool({ perOrganization: 4, memoryBudgetBytes: 100 });
    await Promise.all([
      p.run({ organizationId: 'w1', task: 'spin', input: { ms: 0 } }),
      p.run({ organizationId: 'w2', task: 'spin', input: { ms: 0 } }),
    ]);
    const seen: number[] = [];
    const watch = setInterval(() => seen.push(p.stats().memoryReservedBytes), 5);
    const done = await order(p, [
      { org: 'A', ms: 200, label: 'big', bytes: 80 },
      { org: 'B', ms: 10, label: 'fits-not', bytes: 50 },
      { org: 'C', ms: 100, label: 'alone', bytes: 500 },
    ]);
    clearInterval(watch);
    // 80 + 50 > 100: B's job waits for A's although a worker is free; C's (over the budget) runs alone.
    expect(done).toEqual(['big', 'fits-not', 'alone']);
    expect(Math.max(...seen)).toBe(500);
    expect(seen.filter((b) => b > 100 && b !== 500)).toEqual([]);
  });

  it('streams parts in order with backpressure, then the result', async () => {
    const p = pool();
    const job = p.stream<number, number>({ organizationId: 'A', task: 'parts', input: { count: 50 } });
    const got: number[] = [];
    for await (const part of job) {
      got.push(part);
      if (part === 0) await new Promise((r) => setTimeout(r, 50)); // a slow consumer
    }
    expect(got).toEqual(Array.from({ length: 50 }, (_, i) => i));
    await expect(job.result).resolves.toBe(50);
  });

  it('raises a task’s AppError again with its code and issues; a crashed worker fails its job with 503 only', async () => {
    const p = pool({ workers: 1 });
    const refused = await p.run({ organizationId: 'A', task: 'refuse', input: {} }).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      name: 'AppError',
      code: 'BAD_REQUEST',
      issues: [{ path: 'rows.3', message: 'rows.3 is wrong' }],
    });
    const crashed = await p.run({ organizationId: 'A', task: 'crash', input: {} }).catch((e: unknown) => e);
    expect(crashed).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect(
      p.run({ organizationId: 'A', task: 'spin', input: { ms: 0, label: 'after' } }),
    ).resolves.toBe('after');
  });

  it('under pressure with heavy work running, starts nothing new and refuses the busy organization at once', async () => {
    let pressed = false;
    const p = pool({ underPressure: () => pressed });
    const a1 = p.run({ organizationId: 'A', task: 'spin', input: { ms: 300, label: 'A1' } });
    await new Promise((r) => setTimeout(r, 50));
    pressed = true;
    await expect(p.run({ organizationId: 'A', task: 'spin', input: { ms: 0 } })).rejects.toMatchObject({
      code: 'TOO_MANY_REQUESTS',
    });
    const b1 = p.run({ organizationId: 'B', task: 'spin', input: { ms: 0, label: 'B1' } });
    await new Promise((r) => setTimeout(r, 150));
    expect(p.stats()).toMatchObject({ active: 1, queued: 1 });
    pressed = false;
    await expect(Promise.all([a1, b1])).resolves.toEqual(['A1', 'B1']);
  });

  it('streams a job’s input with backpressure: a producer runs no more than two windows ahead of a stalled consumer', async () => {
    const p = pool();
    const job = p.stream<number, number>({ organizationId: 'A', task: 'echo', input: {}, feed: true });
    await job.started;
    let fed = 0;
    const producer = (async () => {
      for (let i = 0; i < 100; i++) {
        await job.feed(i);
        fed++;
      }
      job.end();
    })();
    await new Promise((r) => setTimeout(r, 300));
    // Nothing taken yet: the input window (2), the part in the task's hands and the output window (8).
    expect(fed).toBeGreaterThan(0);
    expect(fed).toBeLessThanOrEqual(12);
    const got: number[] = [];
    for await (const part of job) got.push(part);
    await producer;
    expect(got).toEqual(Array.from({ length: 100 }, (_, i) => i * 2));
    await expect(job.result).resolves.toBe(100);
  });

  it('cancels a running job whose consumer stops taking its parts; the worker takes the next job', async () => {
    const p = pool({ workers: 1 });
    const job = p.stream<number>({ organizationId: 'A', task: 'endless', input: {} });
    const got: number[] = [];
    for await (const part of job) {
      got.push(part);
      if (got.length === 3) break;
    }
    await expect(job.result).rejects.toMatchObject({ name: 'HeavyJobCancelled' });
    await expect(job.feed(1)).rejects.toBeDefined();
    await expect(p.run({ organizationId: 'A', task: 'spin', input: { ms: 0, label: 'next' } })).resolves.toBe(
      'next',
    );
  });
});
