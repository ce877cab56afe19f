import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { neutralizeCell } from '../datasets/index.ts';
import type { Column, ExportCell, ExportRow } from './exports.columns.ts';

export type ExportFormat = 'csv' | 'ndjson' | 'xlsx';

export const MEDIA_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** The client went away (or the output was closed): the export stops reading. */
export class ExportCancelled extends Error {
  constructor() {
    super('the export was cancelled: the client closed the connection');
  }
}

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

/** A cell as text: what CSV writes (before neutralizing) and what the formats are compared by. */
export function cellText(cell: ExportCell): string {
  if (cell === null || cell === undefined) return '';
  if (cell instanceof Date) return cell.toISOString();
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number' || typeof cell === 'boolean') return String(cell);
  return JSON.stringify(cell);
}

/** A cell for JSON: dates as ISO text, everything else as read (JSON values stay structured). */
function jsonCell(cell: ExportCell): unknown {
  if (cell === undefined) return null;
  if (cell instanceof Date) return cell.toISOString();
  return cell;
}

/** A cell for a worksheet: numbers and booleans typed, the rest as text (never a formula). */
function sheetCell(cell: ExportCell): string | number | boolean | null {
  if (cell === null || cell === undefined) return null;
  if (typeof cell === 'number' || typeof cell === 'boolean') return cell;
  return cellText(cell);
}

/** Writes rows of fixed columns to an output stream in one format. */
export interface RowWriter {
  start(columns: Column[]): Promise<void>;
  rows(rows: ExportRow[]): Promise<void>;
  end(): Promise<void>;
}

export function createWriter(format: ExportFormat, out: Writable, sheetName = 'export'): RowWriter {
  if (format === 'ndjson') return ndjsonWriter(out);
  if (format === 'xlsx') return xlsxWriter(out, sheetName);
  return csvWriter(out);
}

/** Characters that make a CSV field need quotes (RFC 4180: separator, quote, line breaks). */
const NEEDS_QUOTES = /[",\n\r]/;
const QUOTE = /"/g;

/**
 * Rows as CSV lines, each cell neutralised: the same text csv-stringify writes with its defaults
 * (`,` between fields, `\n` after each record, a field quoted only when it holds `,`, `"`, CR or
 * LF, quotes doubled, empty cells left empty), written out here because the general library
 * cost four times as much per row in the exports' profile (a test compares both on every case).
 */
export function csvLines(rows: ExportRow[]): string {
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const cell = neutralizeCell(cellText(row[i]));
      if (i > 0) text += ',';
      text += NEEDS_QUOTES.test(cell) ? `"${cell.replace(QUOTE, '""')}"` : cell;
    }
    text += '\n';
  }
  return text;
}

function csvWriter(out: Writable): RowWriter {
  return {
    start: (columns) => put(out, csvLines([columns.map((c) => c.name)])),
    async rows(rows) {
      if (rows.length > 0) await put(out, csvLines(rows));
    },
    async end() {},
  };
}

function ndjsonWriter(out: Writable): RowWriter {
  let names: string[] = [];
  return {
    async start(columns) {
      names = columns.map((c) => c.name);
    },
    async rows(rows) {
      if (rows.length === 0) return;
      let chunk = '';
      for (const row of rows) {
        const object: Record<string, unknown> = {};
        names.forEach((name, i) => {
          object[name] = jsonCell(row[i]);
        });
        chunk += `${JSON.stringify(object)}\n`;
      }
      await put(out, chunk);
    },
    async end() {},
  };
}

/**
 * exceljs's streaming workbook writer: each committed row is written into the zip as it comes;
 * only the sheet's current row is kept. The zip writes into `out` without waiting for it, so
 * after each page this waits until `out` has drained.
 */
function xlsxWriter(out: Writable, sheetName: string): RowWriter {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: false,
    useSharedStrings: false,
  });
  const sheet = workbook.addWorksheet(sheetName);
  return {
    async start(columns) {
      sheet.addRow(columns.map((c) => c.name)).commit();
    },
    async rows(rows) {
      for (const row of rows) sheet.addRow(row.map(sheetCell)).commit();
      await drained(out);
    },
    async end() {
      sheet.commit();
      await workbook.commit();
    },
  };
}
