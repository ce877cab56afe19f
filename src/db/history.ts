import type { Insertable } from 'kysely';
import { chunks } from '../lib/chunks.ts';
import { json, type Tx } from './client.ts';
import type { DB } from './schema/index.ts';

/** The append-only change logs: one row per change of a record, with snapshots before and after. */
export type HistoryTable = 'form_value_history' | 'activity_history' | 'dataset_item_history';

/** A history row as callers give it: the table's columns, with plain values as snapshots. */
export type HistoryRow<T extends HistoryTable> = Omit<Insertable<DB[T]>, 'before' | 'after'> & {
  before: unknown;
  after: unknown;
};

/**
 * Appends rows to a history table in multi-row statements; snapshots are stored as jsonb
 * (null stays SQL null: "did not exist before" or "no longer exists").
 */
export async function appendHistory<T extends HistoryTable>(
  tx: Tx,
  table: T,
  rows: readonly HistoryRow<T>[],
  chunkSize?: number,
): Promise<void> {
  for (const part of chunks(rows, chunkSize)) {
    const values = part.map((r) => ({
      ...r,
      before: r.before === null ? null : json(r.before),
      after: r.after === null ? null : json(r.after),
    }));
    // The generic row type cannot be narrowed to one table's insert type: the shape is checked above.
    await tx
      .insertInto(table as HistoryTable)
      .values(values as never)
      .execute();
  }
}
