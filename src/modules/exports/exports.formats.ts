import type { Writable } from 'node:stream';
import type { RowEncoder } from '../../lib/tabular/cells.ts';
import { csvRecords } from '../../lib/tabular/csv.ts';
import { neutralizeCell } from '../../lib/tabular/formula.ts';
import { parquetEncoder } from '../../lib/tabular/parquet.ts';
import { xlsxEncoder } from '../../lib/tabular/xlsx.ts';
import type { Column, ExportRow } from './exports.columns.ts';
import { ExportCancelled, type ExportFormat, textEncoderOf, type WriterOptions } from './exports.text.ts';

export { cellText } from '../../lib/tabular/cells.ts';
export type { ExportFormat, WriterOptions };
export { ExportCancelled };

export const MEDIA_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  parquet: 'application/vnd.apache.parquet',
};

/** Writes `chunk`, then waits while the stream's buffer is full; throws when it was closed. */
export async function put(out: Writable, chunk: string | Buffer): Promise<void> {
  if (out.destroyed || out.writableEnded) throw new ExportCancelled();
  if (!out.write(chunk)) await drained(out);
}

/** Resolves when `out` can take more (or rejects once it is closed). */
export function drained(out: Writable): Promise<void> {
  if (out.destroyed) return Promise.reject(new ExportCancelled());
  if (!out.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new ExportCancelled());
    out.on('drain', onDrain);
    out.on('close', onClose);
  });
}

/** Writes rows of fixed columns to an output stream in one format. */
export interface RowWriter {
  start(columns: Column[]): Promise<void>;
  rows(rows: ExportRow[]): Promise<void>;
  end(): Promise<void>;
}

/** The encoder of a format (src/modules/exports/encode: pure, rows in, bytes out). */
export function encoderOf(format: ExportFormat, options: WriterOptions = {}): RowEncoder {
  if (format === 'xlsx')
    return xlsxEncoder({
      sheetName: options.sheetName ?? 'export',
      // A workbook's own date: the export's start, given by the caller from the service's clock.
      modified: options.modified ?? new Date(0),
    });
  if (format === 'parquet') return parquetEncoder();
  return textEncoderOf(format, options);
}

/**
 * Writes rows to `out` in one format: the format's encoder makes the bytes of each page and they
 * are written with backpressure (the next page is asked for only once `out` has room again).
 * Kept for the audit pack: `createWriter('csv', out)` is the export's default CSV (BOM, CRLF).
 */
export function createWriter(
  format: ExportFormat,
  out: Writable,
  sheetNameOrOptions: string | WriterOptions = {},
): RowWriter {
  const options =
    typeof sheetNameOrOptions === 'string' ? { sheetName: sheetNameOrOptions } : sheetNameOrOptions;
  const encoder = encoderOf(format, options);
  const send = async (chunks: Buffer[]) => {
    for (const chunk of chunks) await put(out, chunk);
  };
  return {
    start: async (columns) => send(await encoder.start(columns)),
    rows: async (rows) => send(await encoder.page(rows)),
    end: async () => send(await encoder.end()),
  };
}

/** Rows as CSV lines with LF after each (csv-stringify's defaults): see `csvRecords`. */
export function csvLines(rows: ExportRow[], eol: '\r\n' | '\n' = '\n'): string {
  return csvRecords(rows, eol, neutralizeCell);
}
