// What a 10,000-row import body costs the event loop: parsed, validated and hashed on the loop (as
// before decision 177) against the heavy-work pool's `json-body` task (the value comes back in
// parts). Per way: the loop's longest block (monitorEventLoopDelay, 1 ms resolution) and the wall
// time, median of RUNS. No database.  `npm run bench -- heavy-body`   (RUNS=15 ROWS=10000)
import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { heavyErrors, registerOffLoopJsonBody } from '../src/http/heavy-body.ts';
import { parseJsonBody } from '../src/http/json-body.ts';
import { compileBodyValidator } from '../src/http/validation.ts';
import { canonicalHash } from '../src/lib/canonical.ts';
import { HeavyWork } from '../src/lib/heavy/pool.ts';
import { ImportBody as ImportBodySchema } from '../src/modules/source-imports/imports.schemas.ts';

const RUNS = Number(process.env['RUNS'] ?? 15);
const ROWS = Number(process.env['ROWS'] ?? 10_000);
const text = JSON.stringify({
  sourceAdapterDefinitionId: '00000000-0000-4000-8000-000000000000',
  adapterVersion: 'a'.repeat(64),
  mode: 'execute',
  context: { year: 2025 },
  sheets: [
    {
      name: 'Values',
      rows: Array.from({ length: ROWS }, (_, i) => ({
        Site: `I${i % 10}`,
        Month: (i % 12) + 1,
        Metric: `m${Math.floor(i / 120)}`,
        Amount: i + 0.5,
      })),
    },
  ],
});
const bytes = Buffer.from(text);
const heavy = new HeavyWork({
  // Bundled (bench/run.ts) the worker entry sits beside this file; through tsx it is the source's.
  entry:
    process.env['BENCH_TSX'] === '1'
      ? new URL('../src/heavy-worker-entry.mjs', import.meta.url)
      : new URL('./heavy-worker-entry.mjs', import.meta.url),
  workers: 1,
  perOrganization: 1,
  queuePerOrganization: 8,
  memoryBudgetBytes: 512 * 1024 * 1024,
  jobHeapBytes: 256 * 1024 * 1024,
  errors: heavyErrors,
});
// The route's parser, as registered on a plugin of the import route.
let parser: ((request: unknown, body: Buffer) => Promise<unknown>) | undefined;
registerOffLoopJsonBody(
  {
    removeContentTypeParser: () => undefined,
    addContentTypeParser: (_type: string, _options: unknown, fn: typeof parser) => {
      parser = fn;
    },
  } as never,
  heavy,
  { schemaKey: 'sourceImports.run', schema: ImportBodySchema, hash: true },
);
const fakeRequest = { headers: { 'content-type': 'application/json' }, caller: { organizationId: 'A' } };
const validate = compileBodyValidator(ImportBodySchema);

async function measure(label: string, work: () => Promise<unknown>) {
  const blocks: number[] = [];
  const walls: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const h = monitorEventLoopDelay({ resolution: 1 });
    // A timer keeps the loop sampled while the work awaits.
    const tick = setInterval(() => undefined, 1);
    h.enable();
    // The histogram's first tick only starts its clock: let it tick before the work.
    await new Promise((r) => setTimeout(r, 10));
    const started = performance.now();
    await work();
    const wall = performance.now() - started;
    await new Promise((r) => setTimeout(r, 5));
    h.disable();
    clearInterval(tick);
    if (i >= 2) {
      blocks.push(h.max / 1e6);
      walls.push(wall);
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { label, block: med(blocks), worst: Math.max(...blocks), wall: med(walls) };
}

const load = loadavg()[0]!;
const onLoop = await measure('on the loop (parse, validate, hash)', async () => {
  const value = parseJsonBody(bytes.toString('utf8'));
  if (!validate(value)) throw new Error('invalid');
  return canonicalHash(value);
});
const inPool = await measure('heavy-work pool (json-body task)', () => parser!(fakeRequest, bytes));
await heavy.close();
console.log(
  `\nheavy-body, ${new Date().toISOString().slice(0, 16)} UTC, ${ROWS} rows (${(bytes.length / 1e6).toFixed(2)} MB), ${RUNS} runs, ${availableParallelism()} cores, load average ${load.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)}`,
);
console.log('| way | loop blocked, median | worst | wall time, median |');
console.log('|---|---|---|---|');
for (const r of [onLoop, inPool])
  console.log(
    `| ${r.label} | ${r.block.toFixed(1)} ms | ${r.worst.toFixed(1)} ms | ${r.wall.toFixed(1)} ms |`,
  );
console.log(`ratio of the loop's block, pool / loop: ${(inPool.block / onLoop.block).toFixed(2)}`);
