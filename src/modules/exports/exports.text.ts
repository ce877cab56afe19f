/**
 * The text formats' encoders (CSV, NDJSON), apart from the others so that a worker serving only
 * them (the export lane, decision 0235) loads no workbook or Parquet library; and what the reading
 * of every export shares (`ExportCancelled`).
 */
import type { RowEncoder } from '../../lib/tabular/cells.ts';
import { csvEncoder } from '../../lib/tabular/csv.ts';
import { neutralizeCell } from '../../lib/tabular/formula.ts';
import { ndjsonEncoder } from '../../lib/tabular/ndjson.ts';

/** The client went away (or the output was closed): the export stops reading. */
export class ExportCancelled extends Error {
  constructor() {
    super('the export was cancelled: the client closed the connection');
  }
}

export type ExportFormat = 'csv' | 'ndjson' | 'xlsx' | 'parquet';

export interface WriterOptions {
  /** The worksheet's name (XLSX). */
  sheetName?: string;
  /** CSV: start with a UTF-8 byte order mark (the export routes' default; `bom=false` omits it). */
  bom?: boolean;
  /** CSV: record separator; CRLF (RFC 4180) unless told otherwise. */
  eol?: '\r\n' | '\n';
  /** The time written into the XLSX zip's entries (the export's start). */
  modified?: Date;
}

/** The encoder of CSV (BOM and CRLF unless told otherwise, formula-like text neutralised) or NDJSON. */
export function textEncoderOf(format: ExportFormat, options: WriterOptions = {}): RowEncoder {
  if (format === 'ndjson') return ndjsonEncoder();
  if (format === 'csv')
    return csvEncoder({ bom: options.bom ?? true, eol: options.eol ?? '\r\n', neutralize: neutralizeCell });
  throw new Error(`this worker does not encode ${format}`);
}
