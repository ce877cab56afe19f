import { afterEach, describe, expect, it } from 'vitest';
import { StreamLane } from './lane.ts';

// The tasks of the heavy pool's test worker (`parts`, `endless`, `refuse`, `crash`).
const entry = new URL('./pool.test-worker.mjs', import.meta.url);
const lanes: StreamLane[] = [];
const lane = () => {
  const l = new StreamLane({ entry, heapBytes: 64 * 1024 * 1024 });
  lanes.push(l);
  return l;
};

afterEach(async () => {
  await Promise.all(lanes.splice(0).map((l) => l.close()));
});

async function all<P>(job: AsyncIterable<P>): Promise<P[]> {
  const got: P[] = [];
  for await (const part of job) got.push(part);
  return got;
}

describe('the stream lane', () => {
  it('runs a job whose consumer stalls beside others on its one worker: they finish, it waits', async () => {
    const l = lane();
    // A job nobody reads: its task stops at the window of parts not taken, holding nothing else.
    const stalled = l.stream<number>({ task: 'endless', input: {} });
    const first = stalled[Symbol.asyncIterator]();
    expect((await first.next()).value).toBe(0);
    const jobs = [1, 2, 3].map((n) => l.stream<number, number>({ task: 'parts', input: { count: 50 * n } }));
    const parts = await Promise.all(jobs.map(all));
    expect(parts.map((p) => p.length)).toEqual([50, 100, 150]);
    expect(parts[2]).toEqual(Array.from({ length: 150 }, (_, i) => i));
    expect(await Promise.all(jobs.map((j) => j.result))).toEqual([50, 100, 150]);
    // The stalled job is still running (one job: the three others have finished).
    expect(l.running()).toBe(1);
    await first.return?.();
    await expect(stalled.result).rejects.toThrow('The caller went away');
    expect(l.running()).toBe(0);
  });

  it('stops a job when its signal is aborted, and raises a task’s error with its code', async () => {
    const l = lane();
    const controller = new AbortController();
    const endless = l.stream<number>({ task: 'endless', input: {}, signal: controller.signal });
    const iterator = endless[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await expect(all({ [Symbol.asyncIterator]: () => iterator })).rejects.toThrow('The caller went away');
    const refused = l.stream({ task: 'refuse', input: {} });
    await expect(all(refused)).rejects.toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid input data' });
  });

  it('fails the jobs of a worker that died with 503, and starts a new one for the next job', async () => {
    const l = lane();
    const crashed = l.stream({ task: 'crash', input: {} });
    await expect(all(crashed)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(await all(l.stream<number>({ task: 'parts', input: { count: 3 } }))).toEqual([0, 1, 2]);
  });
});
