// What a 10,000-row source import costs the service's event loop (issue 50, decision 233): the
// same import (form values, executed, every amount new) on the request loop and in a heavy worker
// on its own connection (SDCS_IMPORT_WORKER_ROWS), interleaved in one run so that the shared
// machine's load weighs on both alike. Per import: wall time, the main thread's busy time
// (`performance.eventLoopUtilization`, this thread only: the worker's CPU is not counted), and the
// event loop's longest delay and p99 (`monitorEventLoopDelay`, 10 ms resolution).
// PostgreSQL only: `DATABASE_URL=... npm run bench -- import-loop` (ROUNDS=3, ROWS=10000).
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { shutdownSandbox } from '../src/sandbox/index.ts';
import { importSetup, organization } from '../test/hardening/noisy-neighbour.world.ts';
import { freshDatabase, median } from './lib.ts';

const ROWS = Number(process.env['ROWS'] ?? 10_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
if (!process.env['DATABASE_URL']) {
  console.log('import-loop: PostgreSQL only (set DATABASE_URL)');
  process.exit(0);
}

const { database, config, drop } = await freshDatabase('postgres');
const modes = {
  loop: await buildApp({ database, config: { ...config, importWorkerRows: 1_000_000 } }),
  worker: await buildApp({ database, config: { ...config, importWorkerRows: 1_000 } }),
};
const base = await modes.loop.listen({ port: 0, host: '127.0.0.1' });
await modes.worker.ready();
const org = await organization(database, 'Importer');
const { adapter, sheet } = await importSetup(base, org.key, ROWS);

type Figures = { wallMs: number; busyMs: number; maxDelayMs: number; p99DelayMs: number };
const figures: Record<keyof typeof modes, Figures[]> = { loop: [], worker: [] };
let n = 0;
for (let round = 0; round < ROUNDS + 1; round++) {
  for (const mode of ['loop', 'worker'] as const) {
    n++;
    const payload = JSON.stringify({
      sourceAdapterDefinitionId: adapter.id,
      adapterVersion: adapter.adapterVersion,
      mode: 'execute',
      context: { year: 2025 },
      sheets: [{ name: 'Values', rows: sheet(n) }],
    });
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    const elu = performance.eventLoopUtilization();
    const started = performance.now();
    histogram.enable();
    const res = await modes[mode].inject({
      method: 'POST',
      url: '/api/v1/source-imports',
      headers: {
        authorization: `Bearer ${org.key}`,
        'content-type': 'application/json',
        'idempotency-key': `loop-${n}`,
      },
      payload,
    });
    histogram.disable();
    const wallMs = performance.now() - started;
    const used = performance.eventLoopUtilization(elu);
    const body = res.json();
    if (res.statusCode !== 200 || !(body.counts?.imported > 0))
      throw new Error(`${mode}: ${res.body.slice(0, 300)}`);
    // The first round of each warms up (worker start, plans): not counted.
    if (round === 0) continue;
    figures[mode].push({
      wallMs,
      busyMs: used.active,
      maxDelayMs: histogram.max / 1e6,
      p99DelayMs: histogram.percentile(99) / 1e6,
    });
  }
}
const f = (x: number) => x.toFixed(0);
for (const mode of ['loop', 'worker'] as const) {
  const list = figures[mode];
  const med = (k: keyof Figures) => median(list.map((x) => x[k]));
  console.log(
    `import-loop ${mode}: ${ROWS} rows, medians of ${list.length}: wall ${f(med('wallMs'))} ms, main thread busy ${f(med('busyMs'))} ms, loop delay max ${f(med('maxDelayMs'))} ms, p99 ${f(med('p99DelayMs'))} ms (each: ${list.map((x) => `${f(x.wallMs)}/${f(x.busyMs)}/${f(x.maxDelayMs)}`).join(', ')})`,
  );
}
await modes.loop.close();
await modes.worker.close();
await shutdownSandbox();
await drop();
