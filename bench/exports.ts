// Exports per format on PostgreSQL (issue 43): GET /api/v1/exports/values?year=2025 as CSV, NDJSON,
// XLSX and Parquet over loopback, each format in a fresh Node process (the service listening in
// it, a client reading and discarding the stream) run twice: "fresh" (the process's first export)
// and "warm" (its second). Per run: time to first byte, rows/s, and peak RSS growth over the RSS
// before the export (sampled every 20 ms), and the event loop's delay. Beside it, in the same run,
// the bare baseline: PostgreSQL's own `COPY (the export's statement) TO STDOUT` through psql.
// `DATABASE_URL=… npm run bench -- exports` (VALUES=200000 by default; VALUES=1000000 for the issue's
// size; FORMATS=xlsx,csv to pick; CONCURRENT=8 adds 8 XLSX exports at once with the loop's delay).
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { Database } from '../src/db/client.ts';
import type { ExportContext } from '../src/modules/exports/exports.repository.ts';
import { valuesStatement } from '../src/modules/exports/values.repository.ts';
import { energyOrganization, freshDatabase, seedEnergyValues } from './lib.ts';

const ELEMENTS = 50;
const MONTHS = 12;
const FORMATS = {
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  parquet: 'application/vnd.apache.parquet',
} as const;
type Format = keyof typeof FORMATS;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

interface Run {
  format: Format;
  run: 'fresh' | 'warm';
  ms: number;
  firstByteMs: number;
  bytes: number;
  rssBefore: number;
  rssPeak: number;
  loopP99: number;
  loopMax: number;
}

/** Reads a URL of the listening service to the end; answers bytes and times. */
function download(port: number, path: string, key: string, accept: string) {
  return new Promise<{ bytes: number; firstByteMs: number; ms: number }>((resolve, reject) => {
    const start = performance.now();
    let firstByteMs = 0;
    let bytes = 0;
    const req = httpRequest({ port, path, headers: { authorization: `Bearer ${key}`, accept } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
      res.on('data', (chunk: Buffer) => {
        if (bytes === 0) firstByteMs = performance.now() - start;
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ bytes, firstByteMs, ms: performance.now() - start }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The child: one format, two exports in a row (fresh process, then warm). */
async function child(format: Format, databaseUrl: string, key: string) {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    SDCS_DATA_DIR: `/tmp/sdcs-bench-exports-${process.pid}`,
    SDCS_BOOTSTRAP: 'false',
    LOG_LEVEL: 'warn',
    SDCS_MAX_EVENT_LOOP_DELAY_MS: '0',
    SDCS_RATE_LIMIT_PER_MINUTE: '0',
    // CONCURRENT exports of one organization at once (XLSX; see below) are let through the gate.
    SDCS_EXPORTS_PER_CALLER: '16',
    SDCS_EXPORTS_PER_ORGANIZATION: '16',
    SDCS_DB_STREAM_POOL_SIZE: '20',
    SDCS_PRESTART_WORKERS: process.env['SDCS_PRESTART_WORKERS'] ?? 'true',
  });
  const database = await Database.open({ databaseUrl });
  const app = await buildApp({ database, config });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  // A listening service on PostgreSQL starts its export threads (decision 0235; SDCS_PRESTART_WORKERS):
  // give them time to load, so that "fresh" is the process's first export, not its threads' start.
  if (process.env['SDCS_PRESTART_WORKERS'] !== 'false') await new Promise((r) => setTimeout(r, 10_000));
  console.log(`LISTEN ${JSON.stringify({ rss: process.memoryUsage().rss })}`);
  for (const run of ['fresh', 'warm'] as const) {
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 20);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const got = await download(port, '/api/v1/exports/values?year=2025', key, FORMATS[format]);
    loop.disable();
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    const result: Run = {
      format,
      run,
      ...got,
      rssBefore,
      rssPeak,
      loopP99: loop.percentile(99) / 1e6,
      loopMax: loop.max / 1e6,
    };
    console.log(`RESULT ${JSON.stringify(result)}`);
  }
  // CONCURRENT=8: that many XLSX exports of one organization at once (issue 50): the pool runs its
  // share (SDCS_HEAVY_PER_ORGANIZATION, 2) and queues the rest; the event loop's delay meanwhile.
  const concurrent = Number(process.env['CONCURRENT'] ?? 0);
  if (format === 'xlsx' && concurrent > 0) {
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 20);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const start = performance.now();
    const all = await Promise.all(
      Array.from({ length: concurrent }, () =>
        download(port, '/api/v1/exports/values?year=2025', key, FORMATS[format]),
      ),
    );
    loop.disable();
    clearInterval(sampler);
    console.log(
      `CONCURRENT ${JSON.stringify({ exports: concurrent, ms: performance.now() - start, bytes: all.reduce((n, a) => n + a.bytes, 0), rssBefore, rssPeak, loopP99: loop.percentile(99) / 1e6, loopMax: loop.max / 1e6 })}`,
    );
  }
  await app.close();
  await database.close();
}

/** Runs a command, counting the bytes it writes; answers the time it took. */
function timed(command: string, args: string[]): Promise<{ ms: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let bytes = 0;
    const p = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    p.stdout.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0
        ? resolve({ ms: performance.now() - start, bytes })
        : reject(new Error(`${command}: ${code}`)),
    );
  });
}

/** The export's own statement with its parameters written in, for psql. */
function copyStatement(orgId: string, databaseUrl: string): string {
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
  const kysely = new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl }) }),
  });
  const compiled = valuesStatement(ctx, null, null).compile(kysely);
  void kysely.destroy();
  const literal = (v: unknown) =>
    v instanceof Date
      ? `'${v.toISOString()}'`
      : typeof v === 'number'
        ? String(v)
        : `'${String(v).replace(/'/g, "''")}'`;
  return compiled.sql.replace(/\$(\d+)/g, (_, n: string) => literal(compiled.parameters[Number(n) - 1]));
}

async function runChild(format: Format, databaseUrl: string, key: string): Promise<Run[]> {
  const out: Run[] = [];
  await new Promise<void>((resolve, reject) => {
    const p = spawn(process.execPath, [...process.execArgv, process.argv[1]!], {
      env: { ...process.env, BENCH_EXPORT_CHILD: JSON.stringify({ format, databaseUrl, key }) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    p.stdout.on('data', (c: Buffer) => {
      text += c.toString();
    });
    p.on('close', (code) => {
      for (const line of text.split('\n')) {
        if (line.startsWith('RESULT ')) out.push(JSON.parse(line.slice(7)) as Run);
        if (line.startsWith('CONCURRENT ') || line.startsWith('LISTEN ')) console.log(format, line);
      }
      code === 0 ? resolve() : reject(new Error(`child ${format}: ${code}`));
    });
  });
  return out;
}

const childArgs = process.env['BENCH_EXPORT_CHILD'];
if (childArgs) {
  const { format, databaseUrl, key } = JSON.parse(childArgs) as {
    format: Format;
    databaseUrl: string;
    key: string;
  };
  await child(format, databaseUrl, key);
} else {
  if (!process.env['DATABASE_URL']) throw new Error('bench/exports.ts needs DATABASE_URL (PostgreSQL)');
  const wanted = Number(process.env['VALUES'] ?? 200_000);
  const { database, config, drop } = await freshDatabase('postgres');
  const app = await buildApp({ database, config });
  const seedStart = performance.now();
  const org = await energyOrganization(database, app, ELEMENTS);
  const sites = Math.ceil(wanted / (ELEMENTS * MONTHS));
  await seedEnergyValues(database, org, sites, MONTHS, { regions: 0, codes: true });
  const values = sites * ELEMENTS * MONTHS;
  console.log(`seeded ${values} values in ${((performance.now() - seedStart) / 1000).toFixed(0)} s`);
  await app.close();
  const url = config.databaseUrl!;
  await timed('psql', [url, '-c', 'vacuum analyze']);
  // COPY as the export's role would run it: the organization set, rows by the same statement.
  const copySql = `select set_config('app.organization_id', '${org.orgId}', false);\ncopy (${copyStatement(org.orgId, url)}) to stdout`;
  const copy = await timed('psql', [url, '-q', '-o', '/dev/null', '-c', copySql]).then(() =>
    timed('psql', [url, '-q', '-c', copySql]),
  );
  console.log(`COPY: ${(copy.ms / 1000).toFixed(1)} s, ${mb(copy.bytes)} MB`);
  const runs: Run[] = [];
  const only = process.env['FORMATS']?.split(',') as Format[] | undefined;
  for (const format of only ?? (Object.keys(FORMATS) as Format[])) {
    for (const r of await runChild(format, url, org.key)) {
      runs.push(r);
      console.log(r);
    }
  }
  await database.close();
  await drop();
  console.log(
    `\n${values.toLocaleString('en')} values; COPY (same statement) TO STDOUT via psql: ${(copy.ms / 1000).toFixed(1)} s (${mb(copy.bytes)} MB)\n`,
  );
  console.log(
    '| format | run | time | first byte | rows/s | size | ratio to COPY | RSS before MB | peak growth MB | event loop delay p99 / max |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of runs)
    console.log(
      `| ${r.format} | ${r.run} | ${(r.ms / 1000).toFixed(1)} s | ${r.firstByteMs.toFixed(0)} ms | ${Math.round(values / (r.ms / 1000)).toLocaleString('en')} | ${mb(r.bytes)} MB | ${(r.ms / copy.ms).toFixed(2)} | ${mb(r.rssBefore)} | +${mb(r.rssPeak - r.rssBefore)} | ${r.loopP99.toFixed(0)} / ${r.loopMax.toFixed(0)} ms |`,
    );
}
