import { type Insertable, sql } from 'kysely';
import { chunks } from '../lib/chunks.ts';
import type { Tx } from './client.ts';
import type { DB } from './schema/index.ts';

/** The append-only change logs: one row per change of a record, with snapshots before and after. */
export type HistoryTable = 'form_value_history' | 'activity_history' | 'dataset_item_history';

/** A history row as callers give it: the table's columns, with plain values as snapshots. */
export type HistoryRow<T extends HistoryTable> = Omit<Insertable<DB[T]>, 'before' | 'after'> & {
  before: unknown;
  after: unknown;
};

/**
 * Appends rows to a history table, one statement per chunk whatever its size: the rows travel as
 * one JSON parameter read back with the table's own row type (`jsonb_populate_recordset`), so
 * each column gets its type. Snapshots are stored as jsonb (null stays SQL null: "did not exist
 * before" or "no longer exists"); columns left out of the rows take their defaults.
 */
export async function appendHistory<T extends HistoryTable>(
  tx: Tx,
  table: T,
  rows: readonly HistoryRow<T>[],
  chunkSize = 2_500,
): Promise<void> {
  if (rows.length === 0) return;
  // Every row of a call has the same columns (those of the first one).
  const columns = Object.keys(rows[0]!);
  const list = sql.join(columns.map((c) => sql.ref(c)));
  for (const part of chunks(rows, chunkSize)) {
    await sql`insert into ${sql.table(table)} (${list})
              select ${list} from jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(part)}::jsonb)`.execute(
      tx,
    );
  }
}
