import { type RawBuilder, sql } from 'kysely';
import type { Engine, Tx } from '../../db/client.ts';
import { ExportCancelled } from './exports.formats.ts';

/** Runs `fn` in a new short transaction of the caller's organization (row-level security on). */
export type TenantRun = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

/**
 * A statement an export reads, in a fixed order by a unique key: the whole of it (`after` null,
 * `limit` null: a cursor reads it), or the page after the key of the last row read.
 */
export interface OrderedQuery<R, K> {
  statement(after: K | null, limit: number | null): RawBuilder<R>;
  keyOf(row: R): K;
}

/**
 * Rows per fetch on PostgreSQL, and per page on PGlite, whose statements run on the service's own
 * thread: a smaller page there keeps what another request may wait for short.
 */
export const PAGE_SIZE = { postgres: 2_000, pglite: 250 } as const;

/**
 * Reads every row of `query`, a page at a time, handing each page to `onPage` before reading the
 * next (which waits for the client: nothing more than a page is held in memory).
 *
 * - PostgreSQL: one transaction with a cursor, fetched a page at a time. The cursor's snapshot is
 *   taken when it is declared, so the export is the data as of its start, whatever is written
 *   meanwhile. It holds one of the pool's connections for the export's duration.
 * - PGlite (one connection for everything): each page is read in a short transaction of its own,
 *   by keyset (`after` the last key), so other requests run between pages. There is no snapshot
 *   across transactions there: the statements leave out rows created after the export's start
 *   (their own `asOf`), but a row changed meanwhile is read as it is when its page is read.
 *
 * `signal` (the client went away) stops the reading between pages; the cursor is closed with its
 * transaction.
 */
export async function readPages<R, K>(
  engine: Engine,
  run: TenantRun,
  query: OrderedQuery<R, K>,
  signal: AbortSignal,
  onPage: (rows: R[]) => Promise<void>,
  pageSize: number = PAGE_SIZE[engine],
): Promise<void> {
  if (engine === 'postgres') {
    await run(async (tx) => {
      await sql`declare sdcs_export no scroll cursor for ${query.statement(null, null)}`.execute(tx);
      for (;;) {
        if (signal.aborted) throw new ExportCancelled();
        const page = await sql.raw<R>(`fetch forward ${pageSize} from sdcs_export`).execute(tx);
        if (page.rows.length > 0) await onPage(page.rows);
        if (page.rows.length < pageSize) break;
      }
      await sql`close sdcs_export`.execute(tx);
    });
    return;
  }
  let after: K | null = null;
  for (;;) {
    // PGlite answers on this thread, so without a real turn of the event loop between pages the
    // whole export would run as one task (the client keeps up over loopback): timers, other
    // requests and their statements get their turn here, before the next page is asked for.
    await new Promise((resolve) => setImmediate(resolve));
    if (signal.aborted) throw new ExportCancelled();
    const from = after;
    const page = await run((tx) => query.statement(from, pageSize).execute(tx));
    if (page.rows.length > 0) await onPage(page.rows);
    if (page.rows.length < pageSize) break;
    after = query.keyOf(page.rows[page.rows.length - 1]!);
  }
}
