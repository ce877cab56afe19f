// Bundles the service into dist/ (one ES module, dependencies left to node_modules) so that
// start-up does not compile TypeScript. Takes well under a second; `npm start` runs it first.
import { cpSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  entryPoints: [`${root}src/cli.ts`],
  outfile: `${root}dist/sdcs.mjs`,
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
