import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { type Config, loadConfig } from '../src/config.ts';
import { Database } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';

/** The engines a benchmark runs on: PGlite always, PostgreSQL when DATABASE_URL is set. */
export function engines(): Array<'pglite' | 'postgres'> {
  return process.env['DATABASE_URL'] ? ['pglite', 'postgres'] : ['pglite'];
}

/** A fresh migrated database of the given engine, and a function that removes it. */
export async function freshDatabase(
  engine: 'pglite' | 'postgres',
): Promise<{ database: Database; config: Config; drop: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sdcs-bench-'));
  // No overload or rate-limit refusals: a benchmark measures, on a machine that may be busy, with
  // one credential sending far more than a person would.
  const config = loadConfig({
    SDCS_DATA_DIR: dataDir,
    SDCS_BOOTSTRAP: 'false',
    LOG_LEVEL: 'warn',
    SDCS_MAX_EVENT_LOOP_DELAY_MS: '0',
    SDCS_RATE_LIMIT_PER_MINUTE: '0',
  });
  if (engine === 'pglite') {
    const database = await Database.open({ dataDir: join(dataDir, 'pglite') });
    await migrate(database);
    await withoutTotals(database);
    return { database, config, drop: () => database.close() };
  }
  const url = process.env['DATABASE_URL']!;
  const name = `sdcs_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  // BENCH_LOG_MS=n: the server logs the duration of each parse, bind and execute of n ms or more.
  if (process.env['BENCH_LOG_MS']) {
    await admin.query(
      `ALTER DATABASE ${name} SET log_min_duration_statement = ${Number(process.env['BENCH_LOG_MS'])}`,
    );
  }
  // BENCH_AUTO_EXPLAIN_MS=n: the server logs the plan (with trigger and foreign-key times) of every
  // statement of the benchmark's database that takes n ms or more (auto_explain, in its log file).
  const explainMs = process.env['BENCH_AUTO_EXPLAIN_MS'];
  if (explainMs) {
    for (const setting of [
      "session_preload_libraries = 'auto_explain'",
      `auto_explain.log_min_duration = ${Number(explainMs)}`,
      'auto_explain.log_analyze = on',
      'auto_explain.log_triggers = on',
      'auto_explain.log_buffers = on',
      'auto_explain.log_nested_statements = on',
    ])
      await admin.query(`ALTER DATABASE ${name} SET ${setting}`);
  }
  // BENCH_FUNCTION_STATS=1: the server times every PL/pgSQL and SQL function call of the
  // benchmark's database (track_functions), and the busiest are printed before it is dropped.
  const functionStats = process.env['BENCH_FUNCTION_STATS'] === '1';
  if (functionStats) await admin.query(`ALTER DATABASE ${name} SET track_functions = 'all'`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const database = await Database.open({ databaseUrl: target.toString() });
  await migrate(database);
  await withoutTotals(database);
  return {
    database,
    config: { ...config, databaseUrl: target.toString() },
    drop: async () => {
      await database.close();
      if (functionStats) await printFunctionStats(target.toString());
      // BENCH_KEEP=1: the database stays, for a look at what the benchmark left.
      if (process.env['BENCH_KEEP'] === '1') {
        console.log(`kept database ${name}`);
        await admin.end();
        return;
      }
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** The functions of a database by total time (self time apart), as track_functions counted them. */
async function printFunctionStats(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ funcname: string; calls: string; total: number; self: number }>(
    `select funcname, calls, round(total_time::numeric, 1)::float8 as total, round(self_time::numeric, 1)::float8 as self
       from pg_stat_user_functions order by total_time desc limit 25`,
  );
  await client.end();
  console.log('| function | calls | total ms | self ms |\n|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.funcname} | ${r.calls} | ${r.total} | ${r.self} |`);
}

/**
 * NO_TOTALS=1: the pre-aggregated totals' triggers (migrations 0029, 0033 and 0035) are disabled, a
 * baseline of the write cost they add; NO_STATS=1 disables only the per-site statistics' (0033),
 * the cost of LAST/AVERAGE alone; NO_COMPLETENESS=1 only the kept completeness' (0035) (reads then
 * answer wrong figures: for write benchmarks only).
 */
async function withoutTotals(database: Database): Promise<void> {
  const all = process.env['NO_TOTALS'] === '1';
  const kinds = [
    ...(all ? ['totals'] : []),
    ...(all || process.env['NO_STATS'] === '1' ? ['stats'] : []),
    ...(all || process.env['NO_COMPLETENESS'] === '1' ? ['completeness'] : []),
  ];
  for (const kind of kinds)
    await database.execScript(
      ['insert', 'update', 'delete']
        .map(
          (op) =>
            `alter table form_element_submissions disable trigger form_element_submissions_${kind}_on_${op};`,
        )
        .join('\n'),
    );
}

/** Median of a list of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

type InjectApp = { inject: FastifyInstance['inject'] };

/** One API call through `app.inject` with an API key; anything but a 200 stops the benchmark. */
export async function call(
  app: InjectApp,
  key: string,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  payload?: object,
  headers: Record<string, string> = {},
) {
  const res = await app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...headers },
    ...(payload ? { payload } : {}),
  });
  if (res.statusCode !== 200)
    throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return res.json();
}

/** What `energyOrganization` made: the key, ids and the catalog's units by symbol. */
export interface EnergyOrganization {
  key: string;
  orgId: string;
  userId: string;
  unitIds: Map<string, string>;
  rootId: string;
  formId: string;
  elementIds: string[];
}

/**
 * The start every reporting benchmark shares: an organization with an API key, a root site
 * "Group", and a monthly form "Energy" of `elements` kWh NUMBER elements `e0…` (the aggregation
 * of element i from `aggregationOf`, SUM by default). Values are then seeded in SQL.
 */
export async function energyOrganization(
  database: Database,
  app: InjectApp,
  elements: number,
  aggregationOf: (i: number) => 'SUM' | 'LAST' = () => 'SUM',
): Promise<EnergyOrganization> {
  const org = await createOrganizationWithKey(database, {
    organizationName: 'Bench',
    email: 'bench@example.com',
    name: 'Bench',
    password: null,
  });
  const key = org!.apiKey;
  const units = (await call(app, key, 'GET', '/units')) as { id: string; symbol: string }[];
  const unitIds = new Map(units.map((u) => [u.symbol, u.id]));
  const root = await call(app, key, 'POST', '/sites', { name: 'Group' });
  const form = await call(app, key, 'POST', '/forms', {
    name: 'Energy',
    periodType: 'MONTHLY',
    elements: Array.from({ length: elements }, (_, i) => ({
      key: `e${i}`,
      label: `Element ${i}`,
      type: 'NUMBER',
      unitId: unitIds.get('kWh'),
      aggregation: aggregationOf(i),
    })),
  });
  return {
    key,
    orgId: org!.organization.id,
    userId: org!.user.id,
    unitIds,
    rootId: root.id,
    formId: form.id,
    elementIds: form.elements.map((e: { id: string }) => e.id),
  };
}

/** How `seedEnergyValues` lays out the sites. */
export interface EnergyLayout {
  /** Regions under the root, plants spread below them in turn; 0: plants right under the root. */
  regions?: number;
  /** A region's metadata by its number (1…regions); `{}` by default. */
  regionMetadata?: (region: number) => Record<string, unknown>;
  /** Plants get the code `P<n>`. */
  codes?: boolean;
}

/**
 * The values the reporting benchmarks read: ten regions under the root (see EnergyLayout),
 * `sites` plants spread below them, each plant's form-site for 2025 with one submission of every
 * element for `months` months (every third month APPROVED, the others COMPLETED), in one
 * transaction; then ANALYZE.
 */
export async function seedEnergyValues(
  database: Database,
  org: Pick<EnergyOrganization, 'orgId' | 'userId' | 'rootId' | 'formId' | 'elementIds'>,
  sites: number,
  months: number,
  layout: EnergyLayout = {},
): Promise<void> {
  const { orgId, userId, rootId, formId, elementIds } = org;
  const regions = layout.regions ?? 10;
  const metadata = Array.from({ length: regions }, (_, r) =>
    JSON.stringify(layout.regionMetadata?.(r + 1) ?? {}),
  );
  await database.system(async (tx) => {
    await sql`select set_config('app.organization_id', ${orgId}, true)`.execute(tx);
    await sql`
      insert into sites (organization_id, name, parent_id, metadata, address)
      select ${orgId}, 'Region ' || r, ${rootId}::uuid, (${metadata}::text[])[r]::jsonb, '{}'
        from generate_series(1, ${regions}) r`.execute(tx);
    await sql`
      insert into sites (organization_id, name, code, parent_id, metadata, address)
      select ${orgId}, 'Plant ' || p, ${layout.codes ? sql`'P' || p` : sql`null`},
             ${
               regions > 0
                 ? sql`(select id from sites where organization_id = ${orgId} and name = 'Region ' || (1 + p % ${regions}))`
                 : sql`${rootId}::uuid`
             }, '{}', '{}'
        from generate_series(1, ${sites}) p`.execute(tx);
    await sql`
      insert into form_sites (organization_id, form_id, site_id, year)
      select ${orgId}, ${formId}::uuid, id, 2025 from sites where organization_id = ${orgId} and name like 'Plant %'`.execute(
      tx,
    );
    await sql`
      insert into form_submissions (organization_id, form_site_id, user_id)
      select ${orgId}, id, ${userId}::uuid from form_sites where organization_id = ${orgId}`.execute(tx);
    await sql`
      insert into form_element_submissions
        (organization_id, form_submission_id, element_id, period_unit, value, numeric_value, status, user_id, site_id, year)
      select ${orgId}, s.id, e.id, m, to_jsonb(v), v, case when m % 3 = 0 then 'APPROVED' else 'COMPLETED' end, ${userId}::uuid,
             fs.site_id, fs.year
        from form_submissions s
        join form_sites fs on fs.id = s.form_site_id
        cross join unnest(${elementIds}::uuid[]) e(id)
        cross join generate_series(1, ${months}) m
        cross join lateral (select (10 + (abs(hashtext(s.id::text || e.id::text)) % 1000) + m)::float8 as v) val
       where s.organization_id = ${orgId}`.execute(tx);
  });
  await database.system((tx) => sql`analyze`.execute(tx));
}

/**
 * A grid factor (0.4 kgCO2e per kWh, key `grid`) and 10 indicators `(e_k + e_k+10) × grid / e_10k+9`
 * (the last a LAST element with `energyOrganization`'s every-tenth LAST): 30 elements in all. Answers
 * the indicators and the expression parts to build more.
 */
export async function rootIndicators(app: InjectApp, org: EnergyOrganization) {
  const { key, elementIds, unitIds } = org;
  const dataset = await call(app, key, 'POST', '/datasets', { name: 'Factors' });
  await call(app, key, 'POST', '/dataset-items', {
    datasetId: dataset.id,
    name: 'Grid',
    year: 2025,
    data: { key: 'grid', value: 0.4, unit: 'kgCO2e' },
    inputUnitId: unitIds.get('kWh'),
  });
  const el = (i: number) => ({ type: 'formElement', value: elementIds[i % elementIds.length] });
  const op = (value: string) => ({ type: 'operator', value });
  const grid = { type: 'datasetItem', value: 'grid', metadata: { datasetId: dataset.id } };
  const indicatorIds: string[] = [];
  for (let k = 0; k < 10; k++) {
    const created = await call(app, key, 'POST', '/indicators', {
      name: `Root ${k}`,
      expressionParts: [
        { type: 'parenthesis', value: '(' },
        el(k),
        op('+'),
        el(k + 10),
        { type: 'parenthesis', value: ')' },
        op('*'),
        grid,
        op('/'),
        el(10 * k + 9),
      ],
    });
    indicatorIds.push(created.id);
  }
  return { indicatorIds, el, op, grid };
}
