import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Database } from './client.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Any constant: serializes concurrent start-ups of several processes on one server.
const MIGRATION_LOCK = 7_303_202_601;

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

/** Applies every SQL migration not yet applied, in file-name order; returns the applied names. */
export async function migrate(database: Database): Promise<string[]> {
  const files = await migrationFiles();
  await database.execScript(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const applied: string[] = [];
  await database.system(async (tx) => {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(tx);
    const done = await sql<{ name: string }>`select name from schema_migrations`.execute(tx);
    const seen = new Set(done.rows.map((r) => r.name));
    for (const file of files) {
      if (seen.has(file)) continue;
      const script = await readFile(MIGRATIONS_DIR + file, 'utf8');
      await sql.raw(script).execute(tx);
      await sql`insert into schema_migrations (name) values (${file})`.execute(tx);
      applied.push(file);
    }
  });
  return applied;
}
