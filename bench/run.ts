// Runs the named benchmarks one after another (all when none is named):
//   npm run bench -- http startup        (set DATABASE_URL to include PostgreSQL)
// Each benchmark is first bundled by esbuild as `npm start` bundles the service (scripts/build.mjs),
// and the bundle is what runs: the figures are those of the code users run. (Run through tsx, every
// function created in a hot loop also paid for tsx's name-keeping wrapper: a third of the time of
// checking 10,000 import rows.) BENCH_TSX=1 runs the sources through tsx instead.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const dir = new URL('.', import.meta.url).pathname;
const root = new URL('..', import.meta.url).pathname;
const available = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !['run.ts', 'lib.ts'].includes(f) && !f.startsWith('_'))
  .map((f) => f.replace(/\.ts$/, ''));
const wanted = process.argv.slice(2);
const chosen = wanted.length ? wanted : available;
for (const name of chosen) {
  if (!available.includes(name)) {
    console.error(`unknown benchmark "${name}"; available: ${available.join(', ')}`);
    process.exit(2);
  }
}

const out = `${root}dist-bench/`;
const viaTsx = process.env['BENCH_TSX'] === '1';
if (!viaTsx) {
  rmSync(out, { recursive: true, force: true });
  await build({
    entryPoints: [
      ...chosen.map((name) => ({ in: `${dir}${name}.ts`, out: name })),
      // The sandbox pool starts `worker-entry.mjs` beside the code that runs it, as in dist/.
      { in: `${root}src/sandbox/worker.ts`, out: 'worker-entry' },
      // The heavy-work pool starts `heavy-worker-entry.mjs` beside it too.
      { in: `${root}src/heavy-worker.ts`, out: 'heavy-worker-entry' },
      // The export lane's worker (src/lib/heavy/lane.ts, decision 0235), beside it as well.
      { in: `${root}src/modules/exports/export-worker.ts`, out: 'export-worker-entry' },
    ],
    outdir: out,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // Dependencies load from node_modules as they are; only the project's own code is bundled.
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
  });
  // Read from disk beside the code, as in dist/.
  cpSync(`${root}src/db/migrations`, `${out}migrations`, { recursive: true });
  cpSync(`${root}src/db/functions`, `${out}functions`, { recursive: true });
  cpSync(`${root}src/modules/dashboard-page/assets`, `${out}assets`, { recursive: true });
}

for (const name of chosen) {
  console.log(`\n## ${name}`);
  const args = viaTsx
    ? ['--import', 'tsx', `${dir}${name}.ts`]
    : ['--enable-source-maps', `${out}${name}.mjs`];
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
