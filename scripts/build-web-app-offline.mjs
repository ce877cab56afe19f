// The reporting app's offline parts (issue 47), built after the app itself: the icons and the web
// app manifest (content-hashed like every other file), and the service worker (Workbox, bundled
// here so that nothing is fetched at run time) that precaches the files the app's pages load.
// The service worker keeps a fixed name, /app/sw.js: the browser looks for a new one at that
// address, and a new build is a new worker because its list of files (with their hashes) changed.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { build } from 'esbuild';

const hash8 = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 8).toUpperCase();

/**
 * The page's files the worker keeps: the entry, its style sheet and every chunk it imports,
 * statically or on demand (the screens), except the spreadsheet readers that the import screen
 * loads when a manager reads a workbook (about 1 MB, and the import needs the service anyway).
 */
export function offlineFiles(metafile, entry) {
  const outputs = metafile.outputs;
  const reader = (file) => Object.keys(outputs[file]?.inputs ?? {}).some((i) => i.endsWith('client/workbook-reader.ts'));
  const kept = new Set();
  const visit = (file) => {
    if (kept.has(file) || !outputs[file] || reader(file)) return;
    kept.add(file);
    for (const imported of outputs[file].imports ?? []) visit(imported.path);
    if (outputs[file].cssBundle) kept.add(outputs[file].cssBundle);
  };
  visit(entry);
  return [...kept].map((file) => basename(file));
}

/**
 * Adds the icons, the web app manifest and sw.js to `outdir`; answers what the app's manifest
 * gains: `webManifest` (file name), `serviceWorker` (file name), the new `files`, and `precache`
 * (what the worker keeps, with revisions).
 * `precached` is the list of built files the service worker keeps (the page's script, style and
 * chunks; not the import screen's spreadsheet worker, which only works online anyway).
 */
export async function buildOffline(root, outdir, precached) {
  const source = `${root}src/modules/web-app/client/offline`;
  const files = [];
  const icons = [];
  for (const size of [192, 512]) {
    const bytes = readFileSync(`${source}/icons/icon-${size}.png`);
    const name = `icon-${size}-${hash8(bytes)}.png`;
    writeFileSync(`${outdir}/${name}`, bytes);
    files.push(name);
    icons.push({ src: `/app/assets/${name}`, sizes: `${size}x${size}`, type: 'image/png', purpose: 'any' });
  }
  const webManifest = JSON.stringify(
    {
      name: 'SDCS reporting',
      short_name: 'SDCS',
      description: 'Enter and review sustainability data, also without a connection.',
      id: '/app',
      start_url: '/app',
      scope: '/app',
      display: 'standalone',
      background_color: '#f5f7fa',
      theme_color: '#0b5e55',
      icons,
    },
    null,
    2,
  );
  const manifestName = `app-${hash8(webManifest)}.webmanifest`;
  writeFileSync(`${outdir}/${manifestName}`, webManifest);
  files.push(manifestName);

  const kept = [...precached, ...files];
  // The shell (/app) changes with the names of the files it links: its revision is their hash.
  const list = [
    { url: '/app', revision: hash8(kept.join('\n')) },
    ...kept.map((name) => ({ url: `/app/assets/${name}`, revision: null })),
  ];
  await build({
    entryPoints: [`${source}/sw.ts`],
    outfile: `${outdir}/sw.js`,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome100', 'firefox100', 'safari15'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"', SDCS_PRECACHE: JSON.stringify(list) },
  });
  return { webManifest: manifestName, serviceWorker: 'sw.js', files: [...files, 'sw.js'], precache: list };
}
