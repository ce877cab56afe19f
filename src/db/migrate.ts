import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Database, Tx } from './client.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const FUNCTIONS_DIR = fileURLToPath(new URL('./functions/', import.meta.url));
// Any constant: serializes concurrent start-ups of several processes on one server.
const MIGRATION_LOCK = 7_303_202_601;
/**
 * The last migration of the series whose functions and triggers were written inside migrations
 * (decision 197). A database that applied some of that series but not all of it is refused: the
 * series now holds schema only, and its data steps that called functions are gone.
 */
const FUNCTIONS_MOVED_AFTER = '0051_review_queue.sql';

const migrationFiles = async () => (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();

/** The migrations this version has that the database has not applied (readiness). */
export async function pendingMigrations(database: Database): Promise<string[]> {
  const files = await migrationFiles();
  const done = await database.system(async (tx) => {
    const table = await sql<{ t: string | null }>`select to_regclass('schema_migrations')::text as t`.execute(
      tx,
    );
    if (!table.rows[0]?.t) return [];
    return (await sql<{ name: string }>`select name from schema_migrations`.execute(tx)).rows.map(
      (r) => r.name,
    );
  });
  const seen = new Set(done);
  return files.filter((f) => !seen.has(f));
}

/** One file of src/db/functions: a function's definition, then the triggers that run it. */
export interface FunctionFile {
  name: string;
  definition: string;
  triggers: string[];
}

/** Every function file, by name; the function part and each trigger statement apart. */
export async function functionFiles(): Promise<FunctionFile[]> {
  const names = (await readdir(FUNCTIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(
    names.map(async (file) => {
      const text = await readFile(FUNCTIONS_DIR + file, 'utf8');
      const [definition = '', ...triggers] = text.split(/^(?=CREATE OR REPLACE TRIGGER )/m);
      return { name: file.slice(0, -'.sql'.length), definition, triggers };
    }),
  );
}

const functionsHash = (files: FunctionFile[]) =>
  createHash('sha256').update(JSON.stringify(files)).digest('hex');

/**
 * Applies every SQL migration not yet applied, in file-name order, then the functions and
 * triggers of src/db/functions as they are written there (skipped when the files have not
 * changed since the last run); returns the applied migrations' names.
 */
export async function migrate(database: Database): Promise<string[]> {
  const files = await migrationFiles();
  const functions = await functionFiles();
  await database.execScript(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());' +
      'CREATE TABLE IF NOT EXISTS schema_functions (id boolean PRIMARY KEY DEFAULT true CHECK (id), sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const applied: string[] = [];
  await database.system(async (tx) => {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(tx);
    const done = await sql<{ name: string }>`select name from schema_migrations`.execute(tx);
    const seen = new Set(done.rows.map((r) => r.name));
    if (seen.size > 0 && !seen.has(FUNCTIONS_MOVED_AFTER)) {
      throw new Error(
        `This database was last migrated by an early version of SDCS (before migration ${FUNCTIONS_MOVED_AFTER}). ` +
          'Upgrade it first with a version from before 2026-11-28 (which applies every migration up to that one), then start this version.',
      );
    }
    // A new database: the functions first, without their triggers, since tables and policies name
    // them (sdcs_tenant_table, sdcs_current_org). Their bodies are checked when they run.
    if (seen.size === 0) await applyFunctions(tx, functions, { triggers: false });
    for (const file of files) {
      if (seen.has(file)) continue;
      const script = await readFile(MIGRATIONS_DIR + file, 'utf8');
      await sql.raw(script).execute(tx);
      await sql`insert into schema_migrations (name) values (${file})`.execute(tx);
      applied.push(file);
    }
    const hash = functionsHash(functions);
    const recorded = await sql<{ sha256: string }>`select sha256 from schema_functions`.execute(tx);
    if (applied.length > 0 || recorded.rows[0]?.sha256 !== hash) {
      await applyFunctions(tx, functions, { triggers: true });
      await sql`insert into schema_functions (sha256) values (${hash})
                on conflict (id) do update set sha256 = excluded.sha256, applied_at = now()`.execute(tx);
    }
  });
  return applied;
}

/**
 * Creates or replaces every function (and, with `triggers`, every trigger) of the files, then
 * drops the functions and triggers of the public schema that no file defines any more.
 */
async function applyFunctions(tx: Tx, files: FunctionFile[], options: { triggers: boolean }) {
  await sql`set local check_function_bodies = off`.execute(tx);
  for (const file of files) await sql.raw(file.definition).execute(tx);
  await sql`set local check_function_bodies = on`.execute(tx);
  if (!options.triggers) return;
  const wanted = new Set<string>();
  for (const file of files) {
    for (const trigger of file.triggers) {
      const match = /CREATE OR REPLACE TRIGGER (\w+) .*? ON (?:public\.)?(\w+) /s.exec(trigger);
      if (!match) throw new Error(`${file.name}.sql: a trigger statement without its name and table`);
      wanted.add(`${match[2]}.${match[1]}`);
      await sql.raw(trigger).execute(tx);
    }
  }
  const names = new Set(files.map((f) => f.name));
  const stale = await sql<{ table: string; trigger: string }>`
    select c.relname as "table", t.tgname as "trigger"
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
     where not t.tgisinternal and n.nspname = 'public'`.execute(tx);
  for (const row of stale.rows) {
    if (!wanted.has(`${row.table}.${row.trigger}`)) {
      await sql.raw(`DROP TRIGGER ${quote(row.trigger)} ON public.${quote(row.table)}`).execute(tx);
    }
  }
  const functions = await sql<{ name: string; signature: string }>`
    select p.proname as name, p.oid::regprocedure::text as signature
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = 'public'
       and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`.execute(tx);
  for (const row of functions.rows) {
    if (!names.has(row.name)) await sql.raw(`DROP FUNCTION ${row.signature}`).execute(tx);
  }
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
