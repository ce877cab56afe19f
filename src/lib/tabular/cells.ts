/**
 * How one cell reads in each format. Pure: no database, no HTTP, so that the encoders can run in a
 * worker thread one day (they take arrays of cells and give bytes).
 */
import type { Column, ExportCell, ExportRow } from './columns.ts';

/** A cell as text: what CSV writes (before neutralizing) and what the formats are compared by. */
export function cellText(cell: ExportCell): string {
  if (cell === null || cell === undefined) return '';
  if (cell instanceof Date) return cell.toISOString();
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number' || typeof cell === 'boolean') return String(cell);
  return JSON.stringify(cell);
}

/** A cell for JSON: dates as ISO text, everything else as read (JSON values stay structured). */
export function jsonCell(cell: ExportCell): unknown {
  if (cell === undefined) return null;
  if (cell instanceof Date) return cell.toISOString();
  return cell;
}

/**
 * An encoder turns rows of fixed columns into bytes, a page at a time: `start` gives the head
 * (header row, file preamble), `page` the bytes of those rows (possibly fewer or more bytes than
 * they hold while a compressor is between blocks), `end` whatever is left and the trailer. The
 * bytes of every call, in order, are the file. Each call's answer is bounded by the page it was
 * given plus a compressor's window: nothing accumulates across pages.
 */
export interface RowEncoder {
  start(columns: readonly Column[]): Promise<Buffer[]>;
  page(rows: readonly ExportRow[]): Promise<Buffer[]>;
  end(): Promise<Buffer[]>;
}

const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/;

/**
 * A `datetime` column's cell as a Date: some statements format times as ISO text (to the
 * millisecond, in UTC) rather than hand out Dates; typed formats (XLSX, Parquet) want the instant.
 */
export function instantOf(cell: ExportCell): Date | null {
  if (cell instanceof Date) return Number.isNaN(cell.getTime()) ? null : cell;
  if (typeof cell === 'string' && ISO_INSTANT.test(cell)) {
    const date = new Date(cell);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  return null;
}
