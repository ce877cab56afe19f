import { spawnSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite: a dump of a freshly migrated database, loaded by every test file. */
    pgliteTemplate: string;
    /** PostgreSQL: a migrated database that every test file copies. */
    pgTemplateDb: string;
  }
}

interface Prepared {
  provided: { pgliteTemplate: string; pgTemplateDb: string };
  teardown: () => Promise<void>;
}

// The projects that need the database (integration, process, browser) each name this set-up;
// it runs once per run and is shared between them (the unit project names none).
const shared = globalThis as { sdcsSetup?: { prepared: Promise<Prepared>; users: number } };

/**
 * Migrates one template database per run; each test file then starts from a copy of it,
 * so files are isolated from each other and can run in parallel.
 */
export default async function setup(project: TestProject) {
  shared.sdcsSetup ??= { prepared: prepare(), users: 0 };
  const state = shared.sdcsSetup;
  state.users += 1;
  const { provided } = await state.prepared;
  project.provide('pgliteTemplate', provided.pgliteTemplate);
  project.provide('pgTemplateDb', provided.pgTemplateDb);
  return async () => {
    state.users -= 1;
    if (state.users > 0) return;
    shared.sdcsSetup = undefined;
    await (await state.prepared).teardown();
  };
}

async function prepare(): Promise<Prepared> {
  // The bundle that tests starting the real service run (dist/): built once per run, before any
  // test file, since a build replaces dist/ and files run in parallel.
  const built = spawnSync(
    process.execPath,
    [fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url))],
    {
      encoding: 'utf8',
    },
  );
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
  const url = process.env['DATABASE_URL'];
  if (url) {
    const name = `sdcs_tpl_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const target = new URL(url);
    target.pathname = `/${name}`;
    const database = await Database.open({ databaseUrl: target.toString() });
    await migrate(database);
    await database.close();
    return {
      provided: { pgTemplateDb: name, pgliteTemplate: '' },
      teardown: async () => {
        const left = await admin.query<{ datname: string }>(
          "select datname from pg_database where datname like 'sdcs_t%' and datname like $1",
          [`%_${process.pid}_%`],
        );
        for (const row of left.rows) await admin.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`);
        await admin.end();
      },
    };
  }
  const database = await Database.open({});
  await migrate(database);
  const dump = await database.dumpDataDir();
  await database.close();
  const file = join(tmpdir(), `sdcs-template-${process.pid}.tar`);
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  return { provided: { pgliteTemplate: file, pgTemplateDb: '' }, teardown: () => rm(file, { force: true }) };
}
