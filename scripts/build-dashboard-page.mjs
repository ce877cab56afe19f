// Bundles the public dashboard page's script (src/modules/dashboard-page/client, TypeScript) for
// the browser: its modules, openapi-fetch and intl-messageformat in one file, named by its
// content hash (`dashboard-page-<12 hex>.js`, as the page's other files), written into `outdir`
// with `dashboard-page.json` naming it. Chart.js stays a file of its own (served from the
// installed package by the page's module). The page's module serves the built file.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

/** Builds the page's script into `outdir`; answers the name of the file written. */
export async function buildDashboardPage(root, outdir) {
  const result = await build({
    entryPoints: [`${root}src/modules/dashboard-page/client/main.ts`],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['chrome100', 'firefox100', 'safari15'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error('dashboard page: no output');
  const hash = createHash('sha256').update(output.contents).digest('hex').slice(0, 12);
  const script = `dashboard-page-${hash}.js`;
  mkdirSync(outdir, { recursive: true });
  writeFileSync(`${outdir}/${script}`, output.contents);
  writeFileSync(`${outdir}/dashboard-page.json`, `${JSON.stringify({ script }, null, 2)}\n`);
  return script;
}
