// Bundles the reporting web app (src/modules/web-app/client) for the browser: Preact + htm and the
// app's own modules in one small entry script, its style sheet, and the spreadsheet readers
// (exceljs, papaparse, zip.js) in chunks loaded only when a manager reads a file on the import
// screen, inside that screen's Web Worker (sheets-worker.js, built first so that the app knows its
// content-hashed name), and each language but English (i18n/<tag>.json, a chunk of its own fetched
// when the person's language needs it). Every file is named by its content hash; manifest.json tells the service
// which entry files the page loads.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { build } from 'esbuild';
import { buildFrame } from './build-web-app-frame.mjs';
import { buildOffline, offlineFiles } from './build-web-app-offline.mjs';

/** Builds the app into `outdir` (replaced); answers the manifest it wrote. */
export async function buildWebApp(root, outdir) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const common = {
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
    logLevel: 'warning',
  };
  // The custom activity form's frame document (issue 51, decision 224), built first: the app
  // carries it (client/custom-form/frame-document.ts, a chunk of its own loaded with the first
  // custom form) and writes it into the frame, and its CSP allows the frame's code by hash.
  const frame = await buildFrame(root);
  // The import screen's worker, a module worker with its own lazy chunks (the spreadsheet readers).
  const worker = await build({
    ...common,
    entryPoints: [`${root}src/modules/web-app/client/sheets-worker.ts`],
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const workerOutputs = Object.entries(worker.metafile.outputs);
  const workerEntry = workerOutputs.find(([, o]) => o.entryPoint?.endsWith('client/sheets-worker.ts'));
  if (!workerEntry) throw new Error('web app: no worker output');
  const result = await build({
    ...common,
    entryPoints: [`${root}src/modules/web-app/client/main.ts`],
    define: {
      'process.env.NODE_ENV': '"production"',
      SDCS_SHEETS_WORKER: JSON.stringify(`/app/assets/${basename(workerEntry[0])}`),
      SDCS_FRAME_DOCUMENT: JSON.stringify(frame.html),
    },
  });
  const outputs = [...Object.entries(result.metafile.outputs), ...workerOutputs];
  // Dynamically imported modules (the import screen, each language's messages) are entry points
  // of their own in the metafile: the page loads main.js's.
  const entry = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint?.endsWith('client/main.ts'));
  if (!entry) throw new Error('web app: no entry output');
  const manifest = {
    script: basename(entry[0]),
    style: entry[1].cssBundle ? basename(entry[1].cssBundle) : null,
    files: [...new Set(outputs.map(([file]) => basename(file)))],
  };
  // The hashes of the frame's inline script and style sheet, which the app's CSP allows.
  manifest.frame = { scriptHash: frame.scriptHash, styleHash: frame.styleHash };
  // --- Offline (issue 47): icons, web app manifest and the service worker (build-web-app-offline.mjs).
  const offline = await buildOffline(root, outdir, offlineFiles(result.metafile, entry[0]));
  manifest.webManifest = offline.webManifest;
  manifest.serviceWorker = offline.serviceWorker;
  manifest.precache = offline.precache;
  manifest.files.push(...offline.files);
  // --- end offline.
  writeFileSync(`${outdir}/manifest.json`, JSON.stringify(manifest, null, 2));
  return manifest;
}
