import { ByteWriter, ParquetWriter, type SchemaElement } from 'hyparquet-writer';
import { instantOf, type RowEncoder } from './cells.ts';
import type { Column, ColumnType, ExportCell, ExportRow } from './columns.ts';

/**
 * Apache Parquet written with hyparquet-writer, one row group per page of rows (at most
 * `rowGroupRows`, 2,000 by default: the PostgreSQL page), each row group's bytes handed out as soon
 * as it is written; only the footer's metadata (a few hundred bytes per row group) is kept until
 * the end. Columns are typed by the export's column types:
 *
 * | column type | Parquet |
 * |---|---|
 * | `string` | BYTE_ARRAY, STRING (UTF-8) |
 * | `integer` (years, periods, positions) | INT32 |
 * | `number` | DOUBLE |
 * | `boolean` | BOOLEAN |
 * | `datetime` | INT64, TIMESTAMP (milliseconds, adjusted to UTC) |
 * | `json` | BYTE_ARRAY, JSON (the cell's value as JSON text) |
 *
 * Every column is OPTIONAL (an empty cell is null). Compression: Snappy (the library's own).
 */

const ELEMENTS: Record<ColumnType, Omit<SchemaElement, 'name'>> = {
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
  integer: { type: 'INT32' },
  number: { type: 'DOUBLE' },
  boolean: { type: 'BOOLEAN' },
  datetime: {
    type: 'INT64',
    converted_type: 'TIMESTAMP_MILLIS',
    logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
  },
  json: { type: 'BYTE_ARRAY', converted_type: 'JSON', logical_type: { type: 'JSON' } },
};

/** The Parquet schema of an export's columns (the root, then one optional leaf per column). */
export function parquetSchema(columns: readonly Column[]): SchemaElement[] {
  return [
    { name: 'root', num_children: columns.length },
    ...columns.map((c) => ({ name: c.name, repetition_type: 'OPTIONAL' as const, ...ELEMENTS[c.type] })),
  ];
}

/** A cell as the value its column type stores (null when it does not fit: never a wrong type). */
export function parquetValue(type: ColumnType, cell: ExportCell): unknown {
  if (cell === null || cell === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof cell === 'number' && Number.isInteger(cell) ? cell : null;
    case 'number':
      return typeof cell === 'number' ? cell : null;
    case 'boolean':
      return typeof cell === 'boolean' ? cell : null;
    case 'datetime':
      return instantOf(cell);
    case 'json':
      // The library writes the value's JSON text.
      return cell instanceof Date ? cell.toISOString() : cell;
    default:
      return cell instanceof Date
        ? cell.toISOString()
        : typeof cell === 'string'
          ? cell
          : JSON.stringify(cell);
  }
}

export interface ParquetOptions {
  /** Rows per row group (and at most what is held before it is written). */
  rowGroupRows?: number;
}

export function parquetEncoder(options: ParquetOptions = {}): RowEncoder {
  const groupRows = options.rowGroupRows ?? 2_000;
  const writer = new ByteWriter(64 * 1024);
  let parquet: ParquetWriter | null = null;
  let columns: readonly Column[] = [];
  let pending: ExportRow[] = [];
  /** The bytes written so far, taken out of the writer (its buffer is reused). */
  const take = (): Buffer[] => {
    if (writer.index === 0) return [];
    const bytes = Buffer.from(new Uint8Array(writer.buffer, 0, writer.index));
    writer.index = 0;
    return [bytes];
  };
  /** Writes the first `count` pending rows as one row group. */
  const flush = async (count: number) => {
    if (count === 0 || !parquet) return;
    const rows = pending.length === count ? pending : pending.slice(0, count);
    pending = pending.length === count ? [] : pending.slice(count);
    const columnData = columns.map((c, i) => ({
      name: c.name,
      data: rows.map((row) => parquetValue(c.type, row[i])),
    }));
    await parquet.write({ columnData, rowGroupSize: rows.length });
  };
  return {
    async start(cols) {
      columns = cols;
      parquet = new ParquetWriter({
        writer,
        schema: parquetSchema(cols),
        codec: 'SNAPPY',
        createdBy: 'sdcs exports (hyparquet-writer)',
      });
      return take();
    },
    async page(rows) {
      for (const row of rows) pending.push(row);
      while (pending.length >= groupRows) await flush(groupRows);
      return take();
    },
    async end() {
      await flush(pending.length);
      await parquet?.finish();
      return take();
    },
  };
}
