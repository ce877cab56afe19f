// Bundles the service into dist/ (one ES module, dependencies left to node_modules) so that
// start-up does not compile TypeScript. Takes well under a second; `npm start` runs it first.
import { cpSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  // The sandbox's worker thread is its own entry: the pool starts `worker-entry.mjs` beside it.
  entryPoints: [
    { in: `${root}src/cli.ts`, out: 'sdcs' },
    { in: `${root}src/sandbox/worker.ts`, out: 'worker-entry' },
  ],
  outdir: `${root}dist`,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
// Migrations are read from disk next to the bundle.
cpSync(`${root}src/db/migrations`, `${root}dist/migrations`, { recursive: true });
