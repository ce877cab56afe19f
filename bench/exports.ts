// Exports: GET /api/v1/exports/values?year=2025 as CSV over a real loopback connection (the
// service listening in this process, a client reading and discarding the stream), with the
// process's RSS before, at its peak during, and after the export; beside a bare baseline in the
// same run: the same rows' table read through a cursor by a bare pg client (PostgreSQL), or in
// keyset pages through PGlite's own query API (embedded). On PGlite, meanwhile, GET /me of another
// organization is timed every 100 ms (the export must leave the one connection to others).
// `npm run bench -- exports` (VALUES=1000000 by default on PostgreSQL, PGLITE_VALUES=200000 on
// PGlite; ENGINES=postgres or pglite to run one).
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import type { Database } from '../src/db/client.ts';
import type { ExportContext } from '../src/modules/exports/exports.filters.ts';
import { PAGE_SIZE } from '../src/modules/exports/exports.reader.ts';
import { valuesQuery } from '../src/modules/exports/values.export.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { call, energyOrganization, engines, freshDatabase, median, seedEnergyValues } from './lib.ts';

const ELEMENTS = 50;
const MONTHS = 12;
const only = process.env['ENGINES']?.split(',');
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** Seeds `values` values of 2025: sites × 50 NUMBER elements × 12 months, in SQL. */
async function seed(database: Database, app: Awaited<ReturnType<typeof buildApp>>, values: number) {
  const org = await energyOrganization(database, app, ELEMENTS);
  const sites = Math.ceil(values / (ELEMENTS * MONTHS));
  await seedEnergyValues(database, org, sites, MONTHS, { regions: 0, codes: true });
  // PGlite has no autovacuum: the service's upkeep (src/db/maintenance.ts) vacuums a table once a
  // minute after many inserts, and on the freshly seeded values that takes some 400 ms of the
  // thread. Done here, after seeding, so that it does not fall during the export (it would hold
  // the thread as long in a service that had just bulk-loaded values, export or not).
  if (database.engine === 'pglite') await database.execScript('VACUUM (ANALYZE)');
  return { key: org.key, orgId: org.orgId, sites, values: sites * ELEMENTS * MONTHS };
}

/** Reads a URL of the listening service to the end; answers bytes, lines and time to first byte. */
function download(port: number, path: string, key: string) {
  return new Promise<{ bytes: number; lines: number; firstByteMs: number; ms: number }>((resolve, reject) => {
    const start = performance.now();
    let firstByteMs = 0;
    let bytes = 0;
    let lines = 0;
    const req = httpRequest({ port, path, headers: { authorization: `Bearer ${key}` } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
      res.on('data', (chunk: Buffer) => {
        if (bytes === 0) firstByteMs = performance.now() - start;
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => resolve({ bytes, lines, firstByteMs, ms: performance.now() - start }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The bare baseline: the values table's rows of the year read in pages of 2,000, nothing else. */
async function bare(database: Database, orgId: string, databaseUrl: string | undefined): Promise<number> {
  const start = performance.now();
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('begin');
    await client.query(
      'declare c no scroll cursor for select * from form_element_submissions where organization_id = $1 and year = 2025 order by id',
      [orgId],
    );
    for (;;) {
      const page = await client.query('fetch forward 2000 from c');
      if (page.rows.length < 2000) break;
    }
    await client.query('commit');
    await client.end();
  } else {
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const page = await database.system((tx) =>
        sql<{
          id: string;
        }>`select * from form_element_submissions where organization_id = ${orgId} and year = 2025
                             and deleted_at is null and id > ${after}::uuid order by id limit 2000`.execute(
          tx,
        ),
      );
      if (page.rows.length < 2000) break;
      after = page.rows.at(-1)!.id;
    }
  }
  return performance.now() - start;
}

/** Prints EXPLAIN (ANALYZE, BUFFERS) of the values export's statement for the benchmark's year. */
async function explain(database: Database, engine: 'pglite' | 'postgres', orgId: string) {
  const ctx: ExportContext = {
    organizationId: orgId,
    asOf: new Date(Date.now() + 60_000),
    year: 2025,
    formId: null,
    siteIds: null,
    periodUnits: null,
    statuses: null,
    updatedSince: null,
    key: null,
    sites: new Map(),
  };
  // The statement does not depend on the lookups (they complete its rows per page).
  const query = valuesQuery(ctx, {
    forms: new Map(),
    elements: new Map(),
    units: new Map(),
    locks: [],
    users: new Map(),
  });
  await database.system(async (tx) => {
    await sql`select set_config('app.organization_id', ${orgId}, true)`.execute(tx);
    const middle = await sql<{ id: string }>`
      select id from form_element_submissions where organization_id = ${orgId} and year = 2025
       order by id offset (select count(*) / 2 from form_element_submissions where organization_id = ${orgId}) limit 1`.execute(
      tx,
    );
    const statement =
      engine === 'postgres'
        ? query.statement(null, null)
        : query.statement(middle.rows[0]!.id, PAGE_SIZE.pglite);
    const plan = await sql<{ 'QUERY PLAN': string }>`explain (analyze, buffers) ${statement}`.execute(tx);
    console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
  });
}

const results: string[] = [];
for (const engine of engines().filter((e) => !only || only.includes(e))) {
  const wanted = Number(
    engine === 'postgres' ? (process.env['VALUES'] ?? 1_000_000) : (process.env['PGLITE_VALUES'] ?? 200_000),
  );
  const { database, config, drop } = await freshDatabase(engine);
  const app = await buildApp({ database, config });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const seedStart = performance.now();
  const { key, orgId, values } = await seed(database, app, wanted);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const other = await createOrganizationWithKey(database, {
    organizationName: 'Other',
    email: 'other@example.com',
    name: 'Other',
    password: null,
  });

  // EXPLAIN=1: the plan of the values export's statement, as run (the whole of it on PostgreSQL,
  // one page in the middle of the year on PGlite), with its timings and buffers.
  if (process.env['EXPLAIN']) await explain(database, engine, orgId);
  const bareMs = await bare(database, orgId, engine === 'postgres' ? config.databaseUrl : undefined);
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  // What JavaScript holds (heap and buffers), beside RSS: memory freed by a GC is not always given
  // back to the system at once, so RSS after a GC can stay above what the process still uses.
  const held = () => process.memoryUsage().heapUsed + process.memoryUsage().external;
  const heldBefore = held();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 50);
  // Another organization's GET /me every 100 ms while the export runs, timed from when it was due
  // (a statement of the export holding the thread delays the call's start: that counts).
  const meTimes: number[] = [];
  // The longest task the thread ran meanwhile (a page's statements on PGlite, a GC, …).
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let exporting = true;
  const probe = (async () => {
    while (exporting) {
      const due = performance.now() + 100;
      await new Promise((r) => setTimeout(r, 100));
      await call(app, other!.apiKey, 'GET', '/me');
      meTimes.push(performance.now() - due);
    }
  })();
  const got = await download(port, '/api/v1/exports/values?year=2025', key);
  exporting = false;
  loop.disable();
  await probe;
  clearInterval(sampler);
  global.gc?.();
  const rssAfter = process.memoryUsage().rss;
  const heldAfter = held();
  if (got.lines !== values + 1) throw new Error(`exported ${got.lines - 1} rows of ${values}`);
  const sorted = [...meTimes].sort((a, b) => a - b);
  results.push(
    `| ${engine} | ${values.toLocaleString('en')} | ${(seedSeconds).toFixed(0)} s | ${(got.ms / 1000).toFixed(1)} s | ${got.firstByteMs.toFixed(0)} ms | ${mb(got.bytes)} MB | ${(bareMs / 1000).toFixed(1)} s | ${(got.ms / bareMs).toFixed(1)} | ${mb(rssBefore)} | ${mb(rssPeak)} (+${mb(rssPeak - rssBefore)}) | ${mb(rssAfter)} (+${mb(rssAfter - rssBefore)}) | ${mb(heldBefore)} → ${mb(heldAfter)} | ${meTimes.length} calls: p50 ${median(meTimes).toFixed(0)} ms, p95 ${(sorted[Math.floor(sorted.length * 0.95)] ?? 0).toFixed(0)} ms, max ${(sorted.at(-1) ?? 0).toFixed(0)} ms, ${sorted.filter((ms) => ms > 100).length} over 100 ms; event loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms, max ${(loop.max / 1e6).toFixed(0)} ms |`,
  );
  console.log(results.at(-1));
  await app.close();
  await drop();
}
console.log(
  '| engine | values | seeding | export (CSV, loopback) | first byte | size | bare read | ratio | RSS before MB | RSS peak MB | RSS after MB | heap + external MB, before → after | GET /me of another organization meanwhile |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) console.log(r);
