// The web app's first load: what a browser downloads to show the first screen of /app (the HTML
// shell, the entry script and the chunks it imports statically, the style sheet), raw and gzip
// (level 6, what a compressing proxy typically sends). Beside it, the same esbuild options on a
// bare Preact + htm "hello" page: the floor any page of this stack pays. The import screen's
// spreadsheet readers, loaded on demand, are listed apart. Budget: 150 KB gzip for the first load.
//   npm run bench -- web-app
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildWebApp } from '../scripts/build-web-app.mjs';
import { appShell } from '../src/modules/web-app/web-app.ts';

const BUDGET_GZIP = 150 * 1024;
const root = new URL('..', import.meta.url).pathname;
const gzip = (body: Buffer | string) => gzipSync(body, { level: 6 }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** The files a script imports statically (`import … from "./x.js"`, `import "./x.js"`), transitively. */
function staticGraph(dir: string, entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/(?:^|[;}\s])import\s*(?:[^"';()]*?from\s*)?"\.\/([\w.-]+\.js)"/g))
      visit(m[1]!);
  };
  visit(entry);
  return [...seen];
}

const out = mkdtempSync(join(tmpdir(), 'sdcs-web-app-bench-'));
const manifest = await buildWebApp(root, `${out}/`);
const html = appShell(manifest, '/api/v1');
const first = [...staticGraph(out, manifest.script), ...(manifest.style ? [manifest.style] : [])];
const rows = [
  { file: '/app (HTML shell)', raw: Buffer.byteLength(html), gz: gzip(html) },
  ...first.map((file) => {
    const body = readFileSync(join(out, file));
    return { file, raw: body.length, gz: gzip(body) };
  }),
];
const total = rows.reduce((s, r) => ({ raw: s.raw + r.raw, gz: s.gz + r.gz }), { raw: 0, gz: 0 });

// The floor: a bare Preact + htm page bundled with the same options.
const bare = mkdtempSync(join(tmpdir(), 'sdcs-web-app-bare-'));
writeFileSync(
  join(bare, 'main.js'),
  "import { html, render } from 'htm/preact';\nrender(html`<p>Hello</p>`, document.body);\n",
);
const baseline = await build({
  entryPoints: [join(bare, 'main.js')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome100', 'firefox100', 'safari15'],
  minify: true,
  write: false,
  nodePaths: [join(root, 'node_modules')],
  logLevel: 'warning',
});
const bareJs = baseline.outputFiles[0]!.contents;

const lazy = manifest.files.filter((f) => !first.includes(f) && f.endsWith('.js'));
console.log('| first load of /app | raw | gzip |');
console.log('|---|---|---|');
for (const r of rows) console.log(`| ${r.file} | ${kb(r.raw)} | ${kb(r.gz)} |`);
console.log(`| **total** | **${kb(total.raw)}** | **${kb(total.gz)}** |`);
console.log(
  `| bare Preact + htm page (baseline) | ${kb(bareJs.length)} | ${kb(gzip(Buffer.from(bareJs)))} |`,
);
console.log(`\nfirst load / baseline (gzip): ${(total.gz / gzip(Buffer.from(bareJs))).toFixed(1)}x`);
console.log(
  `budget: ${kb(total.gz)} of ${kb(BUDGET_GZIP)} gzip (${total.gz <= BUDGET_GZIP ? 'within' : 'OVER'})`,
);
console.log('\n| loaded on demand (import screen) | raw | gzip |');
console.log('|---|---|---|');
for (const file of lazy) {
  const body = readFileSync(join(out, file));
  console.log(`| ${file} | ${kb(body.length)} | ${kb(gzip(body))} |`);
}
if (total.gz > BUDGET_GZIP) process.exit(1);
