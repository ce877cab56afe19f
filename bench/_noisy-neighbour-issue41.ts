// Organization B's latencies while organization A holds 12 stalled exports (HTTP clients that read
// the first chunk and stop) and runs 10,000-row source imports back to back: the scenario of
// test/hardening/noisy-neighbour.test.ts, on a listening service over loopback, PostgreSQL only (the
// embedded database has no pools to keep apart). Prints B's p50 and p99 per block kind (the median
// of the blocks' figures) and their ratios to the idle blocks, with the machine's load average.
// `npm run bench -- noisy-neighbour`   (DATABASE_URL required; BLOCKS=3 ROUNDS=25 ROWS=10000)
import { loadavg } from 'node:os';
import { buildApp } from '../src/app.ts';
import { shutdownSandbox } from '../src/sandbox/index.ts';
import { median, noisyNeighbour } from '../test/hardening/noisy-neighbour.world.ts';
import { freshDatabase } from './lib.ts';

if (!process.env['DATABASE_URL']) {
  console.log('noisy-neighbour: needs DATABASE_URL (PostgreSQL); skipped');
  process.exit(0);
}
const blocks = Number(process.env['BLOCKS'] ?? 3);
const rounds = Number(process.env['ROUNDS'] ?? 25);
const rows = Number(process.env['ROWS'] ?? 10_000);

const { database, config, drop } = await freshDatabase('postgres');
const app = await buildApp({ database, config });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
const loadBefore = loadavg()[0]!;
const started = performance.now();
const result = await noisyNeighbour(app, database, port, {
  blocks,
  rounds,
  rows,
  log: (l) => console.log(l),
});
const seconds = (performance.now() - started) / 1000;
const loadAfter = loadavg()[0]!;
await app.close();
await drop();
await shutdownSandbox();

const fig = (blocksOf: { p50: number; p99: number }[]) => ({
  p50: median(blocksOf.map((b) => b.p50)),
  p99: median(blocksOf.map((b) => b.p99)),
});
const idle = fig(result.idle);
const rowsOut = [
  ['idle', idle, median(result.loopDelayMaxMs.idle)],
  ['A: 12 stalled exports', fig(result.exportsOnly), median(result.loopDelayMaxMs.exportsOnly)],
  ['A: 12 stalled exports + 10,000-row imports', fig(result.noisy), median(result.loopDelayMaxMs.noisy)],
] as const;
console.log(
  `\nNoisy neighbour, ${new Date().toISOString().slice(0, 10)}, load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)} (1 min), ${seconds.toFixed(0)} s; ${blocks} blocks of ${rounds} rounds of B's 4 requests per kind; A's exports: ${result.exportStatuses.filter((s) => s === 200).length} x 200, ${result.exportStatuses.filter((s) => s === 429).length} x 429; imports ${result.imports.done} (${result.imports.ms.map((m) => (m / 1000).toFixed(1)).join(', ')} s); B's failures ${result.failures.length}/${result.requests}`,
);
console.log('| B while | p50 ms | p99 ms | p50 ratio | p99 ratio | event loop max delay ms |');
console.log('|---|---|---|---|---|---|');
for (const [label, f, loop] of rowsOut)
  console.log(
    `| ${label} | ${f.p50.toFixed(1)} | ${f.p99.toFixed(1)} | ${(f.p50 / idle.p50).toFixed(2)} | ${(f.p99 / idle.p99).toFixed(2)} | ${loop.toFixed(0)} |`,
  );
