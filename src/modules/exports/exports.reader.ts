import type { RawBuilder } from 'kysely';
import type { Engine, TenantRun, Tx } from '../../db/client.ts';
import { closeExportCursor, declareExportCursor, fetchExportCursor } from './exports.repository.ts';
import { ExportCancelled } from './exports.text.ts';

/**
 * A statement an export reads, in a fixed order by a unique key: the whole of it (`after` null,
 * `limit` null: a cursor reads it), or the page after the key of the last row read.
 */
export interface OrderedQuery<R, K> {
  statement(after: K | null, limit: number | null): RawBuilder<R>;
  keyOf(row: R): K;
  /**
   * Completes a page's rows in place, in the transaction that read them (per-page lookups of what
   * would cost a subquery per row in the statement).
   */
  complete?(tx: Tx, rows: R[]): Promise<void>;
}

/**
 * Rows per fetch on PostgreSQL. On PGlite, whose statements run on the service's own thread, the
 * page size adapts to a time budget: a page's statements hold the thread, so what another request
 * may wait for is about one page's time (see `nextPageSize`).
 */
export const PAGE_SIZE = { postgres: 2_000, pglite: 250 } as const;

/**
 * PostgreSQL: rows handed over at a time, with a turn of the event loop between two slices. A page of
 * 2,000 rows turned into CSV in one piece held the service's thread for tens of milliseconds on a
 * busy machine (a CPU profile while four exports started: ~110 ms in the writer), which every other
 * request waited for; a slice of 250 rows holds it for an eighth of that.
 */
export const HANDOVER_ROWS = 250;

/** PGlite: the time a page's statements may hold the thread, and the bounds of a page's size. */
export const PGLITE_PAGE = { budgetMs: 25, min: 50, max: 2_000 } as const;

/**
 * The next PGlite page's size from the last one's: scaled towards the time budget (at most
 * doubling, at least halving per page, so that one slow page on a busy machine does not swing it).
 */
export function nextPageSize(size: number, ms: number): number {
  const scaled = ms > 0 ? Math.round((size * PGLITE_PAGE.budgetMs) / ms) : size * 2;
  const bounded = Math.min(size * 2, Math.max(Math.ceil(size / 2), scaled));
  return Math.min(PGLITE_PAGE.max, Math.max(PGLITE_PAGE.min, bounded));
}

/**
 * Reads every row of `query`, a page at a time, handing each page to `onPage` before reading the
 * next (which waits for the client: nothing more than a page or two is held in memory).
 *
 * - PostgreSQL: one transaction with a cursor, fetched a page at a time; the next page is asked
 *   for before the current one is handed over, so the server reads it while this one is written.
 *   A page is handed over in slices of `HANDOVER_ROWS`, with a turn of the event loop between
 *   them, so that other requests are not held up while it is written.
 *   The cursor's snapshot is taken when it is declared, so the export is the data as of its start,
 *   whatever is written meanwhile. It holds one of the pool's connections for the export's
 *   duration.
 * - PGlite (one connection for everything): each page is read in a short transaction of its own,
 *   by keyset (`after` the last key), so other requests run between pages. There is no snapshot
 *   across transactions there: the statements leave out rows created after the export's start
 *   (their own `asOf`), but a row changed meanwhile is read as it is when its page is read. The
 *   page size follows the time the last page took (`nextPageSize`) unless `pageSize` is given.
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
  pageSize?: number,
): Promise<void> {
  if (engine === 'postgres') {
    const size = pageSize ?? PAGE_SIZE.postgres;
    await run(async (tx) => {
      await declareExportCursor(tx, query.statement(null, null));
      const fetch = () => {
        const next = fetchExportCursor<R>(tx, size);
        // Not awaited while a page is written: a failure is seen when it is awaited (or the
        // transaction is rolled back), never as an unhandled rejection.
        next.catch(() => {});
        return next;
      };
      let next = fetch();
      for (;;) {
        if (signal.aborted) throw new ExportCancelled();
        const page = await next;
        const last = page.rows.length < size;
        if (page.rows.length > 0) await query.complete?.(tx, page.rows);
        if (!last) next = fetch();
        for (let i = 0; i < page.rows.length; i += HANDOVER_ROWS) {
          if (i > 0) await new Promise((resolve) => setImmediate(resolve));
          await onPage(page.rows.slice(i, i + HANDOVER_ROWS));
        }
        if (last) break;
      }
      await closeExportCursor(tx);
    });
    return;
  }
  let after: K | null = null;
  let size = pageSize ?? PAGE_SIZE.pglite;
  for (;;) {
    // PGlite answers on this thread, so without a real turn of the event loop between pages the
    // whole export would run as one task (the client keeps up over loopback): timers, other
    // requests and their statements get their turn here, before the next page is asked for.
    await new Promise((resolve) => setImmediate(resolve));
    if (signal.aborted) throw new ExportCancelled();
    const from = after;
    const limit = size;
    const started = performance.now();
    const page = await run(async (tx) => {
      const read = await query.statement(from, limit).execute(tx);
      if (read.rows.length > 0) await query.complete?.(tx, read.rows);
      return read;
    });
    if (pageSize === undefined) size = nextPageSize(limit, performance.now() - started);
    if (page.rows.length > 0) await onPage(page.rows);
    if (page.rows.length < limit) break;
    after = query.keyOf(page.rows[page.rows.length - 1]!);
  }
}
