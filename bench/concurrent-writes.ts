// Ten writers of one organization at once: POST /api/v1/form-submissions over HTTP (10 connections,
// autocannon), 50 values (one month of 50 elements) and 500 (50 elements x 10 months), each on a
// random one of 10 top-level sites x 9 years. The same database and service run alternately with
// the aggregates' value triggers (migrations 0029, 0033, 0035) enabled and disabled, ROUNDS times
// each, so the ratio is measured in one run on the same load. What it shows: how much of the
// throughput without aggregates the aggregates keep when one organization's writers run side by side.
// PostgreSQL only (DATABASE_URL): `npm run bench -- concurrent-writes` (BENCH_SECONDS, ROUNDS).
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { buildApp } from '../src/app.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { shutdownSandbox } from '../src/sandbox/index.ts';
import { call, freshDatabase, median } from './lib.ts';

const DURATION_S = Number(process.env['BENCH_SECONDS'] ?? 6);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const CONNECTIONS = 10;

if (!process.env['DATABASE_URL']) {
  console.log('concurrent-writes: PostgreSQL only (set DATABASE_URL)');
  process.exit(0);
}
const { database, config, drop } = await freshDatabase('postgres');
const app = await buildApp({ database, config });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
const org = (await createOrganizationWithKey(database, {
  organizationName: 'Bench',
  email: 'bench@example.com',
  name: 'Bench',
  password: null,
}))!;
const key = org.apiKey;
const sites: Array<{ id: string }> = [];
for (let i = 0; i < 10; i++) sites.push(await call(app, key, 'POST', '/sites', { name: `Plant ${i}` }));
const years = Array.from({ length: 9 }, (_, i) => 2016 + i);
const form = await call(app, key, 'POST', '/forms', {
  name: 'Monthly',
  periodType: 'MONTHLY',
  elements: Array.from({ length: 50 }, (_, i) => ({ key: `n${i}`, label: `Number ${i}`, type: 'NUMBER' })),
});
await call(app, key, 'PUT', '/form-sites', { formId: form.id, siteIds: sites.map((s) => s.id), years });

const triggers = (on: boolean) =>
  database.execScript(
    ['totals', 'stats', 'completeness']
      .flatMap((kind) =>
        ['insert', 'update', 'delete'].map(
          (op) =>
            `alter table form_element_submissions ${on ? 'enable' : 'disable'} trigger form_element_submissions_${kind}_on_${op};`,
        ),
      )
      .join('\n'),
  );

async function load(count: number, seconds: number) {
  const body = () =>
    JSON.stringify({
      formId: form.id,
      siteId: sites[Math.floor(Math.random() * sites.length)]!.id,
      year: years[Math.floor(Math.random() * years.length)],
      values: Array.from({ length: count }, (_, i) => ({
        elementKey: `n${i % 50}`,
        periodUnit: count === 50 ? 1 + Math.floor(Math.random() * 12) : 1 + Math.floor(i / 50),
        value: Math.round(Math.random() * 1e6) / 100,
      })),
    });
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/api/v1/form-submissions`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: body() }),
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

const started = performance.now();
console.log(
  '| values | round | with aggregates req/s (p99 ms) | without req/s (p99 ms) |\n|---|---|---|---|',
);
const summary: string[] = [];
for (const count of [50, 500]) {
  // Every (site, year) written once first: the runs below update values, as a month's corrections do.
  await load(count, 3);
  const withAll: number[] = [];
  const without: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate which goes first: the machine's load drifts.
    const order = round % 2 ? [true, false] : [false, true];
    const cells: Record<string, string> = {};
    for (const on of order) {
      await triggers(on);
      const r = await load(count, DURATION_S);
      (on ? withAll : without).push(r.rps);
      cells[String(on)] = `${r.rps.toFixed(0)} (${r.p99})`;
    }
    console.log(`| ${count} | ${round} | ${cells['true']} | ${cells['false']} |`);
  }
  await triggers(true);
  summary.push(
    `| ${count} | ${median(withAll).toFixed(0)} | ${median(without).toFixed(0)} | ${(median(withAll) / median(without)).toFixed(2)} |`,
  );
}
console.log(
  `\n| values | with aggregates req/s (median) | without | ratio |\n|---|---|---|---|\n${summary.join('\n')}`,
);
console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);
await app.close();
await drop();
await shutdownSandbox();
