import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
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
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * NO_TOTALS=1: the pre-aggregated totals' triggers (migration 0029) are disabled, a baseline of
 * the write cost they add (reads then answer wrong figures: for write benchmarks only).
 */
async function withoutTotals(database: Database): Promise<void> {
  if (process.env['NO_TOTALS'] !== '1') return;
  await database.execScript(
    `alter table form_element_submissions disable trigger form_element_submissions_totals_on_insert;
     alter table form_element_submissions disable trigger form_element_submissions_totals_on_update;
     alter table form_element_submissions disable trigger form_element_submissions_totals_on_delete;`,
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
