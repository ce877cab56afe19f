// /docs (Swagger UI) in Debian's Chromium: the time from navigation until the page has read and
// resolved the OpenAPI document and drawn its "Authorize" button, for three documents served at
// /docs/json, alternated round by round in one browser:
// - served: the document as the service serves it (shared headers and error answers by $ref);
// - inline: the same document with every $ref replaced by what it points to (as it was served
//   before `compactDocument`);
// - bare: a document of one operation (the baseline: Swagger UI's own start-up).
// `npm run bench -- docs-page`   (RUNS=7 rounds by default; needs /usr/bin/chromium)
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { hasChromium, launchChromium, NO_CHROMIUM } from '../test/helpers/browser.ts';
import { dereferenced } from '../test/helpers/openapi-check.ts';
import { freshDatabase, median } from './lib.ts';

if (!hasChromium) {
  console.error(NO_CHROMIUM);
  process.exit(2);
}
const RUNS = Number(process.env['RUNS'] ?? 7);

const { database, config, drop } = await freshDatabase('pglite');
const app = await buildApp({ database, config });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address() as { port: number };
const origin = `http://127.0.0.1:${address.port}`;

const served = app.swagger() as Record<string, unknown>;
const bare = {
  openapi: '3.1.0',
  info: { title: 'bare', version: '1' },
  paths: { '/ping': { get: { responses: { '200': { description: 'pong' } } } } },
  // Swagger UI draws "Authorize" only for a document that declares a security scheme.
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  security: [{ bearer: [] }],
};
const documents: Record<string, string> = {
  served: JSON.stringify(served),
  inline: JSON.stringify(dereferenced(served)),
  bare: JSON.stringify(bare),
};

const browser = await launchChromium();
const times: Record<string, number[]> = { served: [], inline: [], bare: [] };
/** One cold page (new context: no cache) drawing `name`'s document; answers the milliseconds. */
async function draw(name: string): Promise<number> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.route('**/docs/json', (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: documents[name]! }),
  );
  const start = performance.now();
  await page.goto(`${origin}/docs`);
  await page.locator('button.authorize').first().waitFor({ timeout: 120_000 });
  const elapsed = performance.now() - start;
  await context.close();
  return elapsed;
}
for (const name of Object.keys(documents)) await draw(name); // warm-up
for (let round = 0; round < RUNS; round++) {
  for (const name of Object.keys(documents)) times[name]!.push(await draw(name));
}
await browser.close();
await app.close();
await drop();

const kb = (text: string) => `${(Buffer.byteLength(text) / 1024).toFixed(0)} KB`;
const bareMedian = median(times['bare']!);
console.log(`\n/docs drawn in Chromium (median of ${RUNS} rounds, alternated), ms\n`);
console.log('| document at /docs/json | size | median | min | max | ÷ bare |');
console.log('|---|---|---|---|---|---|');
for (const [name, list] of Object.entries(times)) {
  console.log(
    `| ${name} | ${kb(documents[name]!)} | ${median(list).toFixed(0)} | ${Math.min(...list).toFixed(0)} | ${Math.max(...list).toFixed(0)} | ${(median(list) / bareMedian).toFixed(1)} |`,
  );
}
