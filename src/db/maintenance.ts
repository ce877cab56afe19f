import { sql } from 'kysely';
import type { Database } from './client.ts';

/**
 * The embedded database has no autovacuum: without it, statistics stay those of an empty table
 * (the planner then picks plans meant for a few rows) and the visibility map is never set (an
 * index-only scan visits the heap for every row). This does what autovacuum would do, with its
 * default thresholds: a table is analyzed once its changes since the last analyze exceed
 * 50 + 10% of its rows, and vacuumed (with analyze) once its dead rows exceed 50 + 20%, or its
 * inserts since the last vacuum 1,000 + 20%. A PostgreSQL server does this itself.
 */
export interface TableUpkeep {
  table: string;
  action: 'VACUUM (ANALYZE)' | 'ANALYZE';
}

/** Checks every table now and vacuums or analyzes those that need it; returns what it did. */
export async function maintainEmbedded(database: Database): Promise<TableUpkeep[]> {
  if (database.engine !== 'pglite') return [];
  // The backend reports its counters lazily: flush them so the check sees the latest writes.
  await database.system((tx) => sql`select pg_stat_force_next_flush()`.execute(tx));
  const { rows } = await database.system((tx) =>
    sql<{ name: string; vacuum: boolean; analyze: boolean }>`
      select format('%I.%I', schemaname, relname) as name,
             (n_dead_tup > 50 + 0.2 * n_live_tup
               or n_ins_since_vacuum > 1000 + 0.2 * n_live_tup) as vacuum,
             n_mod_since_analyze > 50 + 0.1 * n_live_tup as analyze
        from pg_stat_user_tables
       order by relname`.execute(tx),
  );
  const done: TableUpkeep[] = [];
  for (const row of rows) {
    const action = row.vacuum ? 'VACUUM (ANALYZE)' : row.analyze ? 'ANALYZE' : null;
    if (!action) continue;
    // VACUUM cannot run inside a transaction: it goes as a script of its own (the name comes
    // from the catalog, quoted by format's %I).
    await database.execScript(`${action} ${row.name}`);
    done.push({ table: row.name, action });
  }
  return done;
}

export const EMBEDDED_UPKEEP_INTERVAL_MS = 60_000;

/** Runs the check every minute on the embedded database; returns the function that stops it. */
export function scheduleEmbeddedMaintenance(
  database: Database,
  log: { info: (o: object, m: string) => void; error: (o: object, m: string) => void },
): () => void {
  if (database.engine !== 'pglite') return () => undefined;
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    const started = performance.now();
    try {
      const done = await maintainEmbedded(database);
      if (done.length > 0) {
        log.info(
          { tables: done.map((d) => `${d.action} ${d.table}`), ms: Math.round(performance.now() - started) },
          'embedded database upkeep',
        );
      }
    } catch (error) {
      log.error({ err: error }, 'embedded database upkeep failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(run, EMBEDDED_UPKEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
