// Bundles the reporting web app (src/modules/web-app/client) for the browser: Preact + htm and the
// app's own modules in one small entry script, its style sheet, and the spreadsheet readers
// (exceljs, papaparse) in chunks loaded only when a manager opens the import screen. Every file is
// named by its content hash; manifest.json tells the service which entry files the page loads.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { build } from 'esbuild';

/** Builds the app into `outdir` (replaced); answers the manifest it wrote. */
export async function buildWebApp(root, outdir) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    entryPoints: [`${root}src/modules/web-app/client/main.js`],
    outdir,
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome100', 'firefox100', 'safari15'],
    minify: true,
    metafile: true,
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  const outputs = Object.entries(result.metafile.outputs);
  const entry = outputs.find(([, o]) => o.entryPoint);
  if (!entry) throw new Error('web app: no entry output');
  const manifest = {
    script: basename(entry[0]),
    style: entry[1].cssBundle ? basename(entry[1].cssBundle) : null,
    files: outputs.map(([file]) => basename(file)),
  };
  writeFileSync(`${outdir}/manifest.json`, JSON.stringify(manifest, null, 2));
  return manifest;
}
