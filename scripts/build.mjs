// Bundles the service into dist/ so that start-up neither compiles TypeScript nor resolves
// hundreds of small dependency modules one by one (loading them separately took about as long
// as opening the database). Packages that read files of their own at run time (WebAssembly,
// native addons, static assets) stay in node_modules. Takes well under a second; `npm start`
// runs it first.
import { cpSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  // The sandbox's worker thread is its own entry: the pool starts `worker-entry.mjs` beside it.
  entryPoints: [
    { in: `${root}src/cli.ts`, out: 'sdcs' },
    { in: `${root}src/sandbox/worker.ts`, out: 'worker-entry' },
    // The heavy-work pool's worker (src/lib/heavy/pool.ts), started beside the bundle too.
    { in: `${root}src/heavy-worker.ts`, out: 'heavy-worker-entry' },
    // The export lane's worker (src/lib/heavy/lane.ts, decision 0235), beside it as well.
    { in: `${root}src/modules/exports/export-worker.ts`, out: 'export-worker-entry' },
  ],
  outdir: `${root}dist`,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: [
    '@electric-sql/pglite',
    '@node-rs/argon2',
    'quickjs-emscripten',
    '@jitl/*',
    '@fastify/swagger-ui',
    'pg-native',
  ],
  // Bundled CommonJS packages call require() for Node's own modules.
  banner: { js: "import { createRequire as __sdcsRequire } from 'node:module'; const require = __sdcsRequire(import.meta.url);" },
  sourcemap: true,
  logLevel: 'warning',
});
// Migrations and the functions files are read from disk next to the bundle.
cpSync(`${root}src/db/migrations`, `${root}dist/migrations`, { recursive: true });
cpSync(`${root}src/db/functions`, `${root}dist/functions`, { recursive: true });
// The public dashboard page's style sheet and messages are read from disk beside the bundle, and
// its script (TypeScript in src/modules/dashboard-page/client) is bundled for the browser there.
cpSync(`${root}src/modules/dashboard-page/assets`, `${root}dist/assets`, { recursive: true });
const { buildDashboardPage } = await import('./build-dashboard-page.mjs');
await buildDashboardPage(root, `${root}dist/assets`);
// The reporting web app at /app: bundled for the browser into dist/app (see build-web-app.mjs).
const { buildWebApp } = await import('./build-web-app.mjs');
await buildWebApp(root, `${root}dist/app`);
