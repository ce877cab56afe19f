/**
 * The task that makes a whole export in a worker thread (`table-export`; decisions 0227 and 0235):
 * on PostgreSQL the worker opens a connection of its own, reads the export's rows a page at a time
 * (the same cursor, tenant and role as on the request loop), turns them into cells and encodes
 * them, and sends the bytes back as parts with backpressure. The request loop only moves those
 * bytes to the client. The heavy pool's worker (src/heavy-worker.ts) serves it for XLSX and
 * Parquet; the export lane's worker (export-worker.ts) for CSV and NDJSON, several at once.
 */
import { Database } from '../../db/client.ts';
import type { RowEncoder } from '../../lib/tabular/cells.ts';
import { partSender } from '../../lib/tabular/parts.ts';
import { type PackTableFound, type PackTableSpec, packTableRows } from './audit-pack.tables.ts';
import type { Column } from './exports.columns.ts';
import type { ExportFormat, RowWriter, WriterOptions } from './exports.formats.ts';
import { type ExportSource, writeSource } from './exports.source.ts';

export interface TableExportInput {
  /** The PostgreSQL server (`Database.serverUrl`); PGlite exports are read on the request loop. */
  databaseUrl: string;
  /**
   * Stream connections the worker keeps for exports (the first job of a worker decides): one in a
   * heavy worker (one job at a time), the export gate's total in the lane (its jobs run at once).
   */
  connections?: number;
  organizationId: string;
  format: ExportFormat;
  columns: Column[];
  /** XLSX: the worksheet's name; the zip entries' time (the export's start). */
  sheetName: string;
  modified: Date;
  /** CSV: a UTF-8 byte order mark first. */
  bom: boolean;
  source: ExportSource;
  /** A table of an audit pack: what to apply to its rows and collect from them (decision 0236). */
  pack?: PackTableSpec;
}

/** What a `table-export` job answers: its rows and bytes, and for a pack's table what it found. */
export interface TableExportResult {
  rows: number;
  bytes: number;
  found?: PackTableFound;
}

/** The encoders a worker offers (each worker loads only the libraries of its formats). */
export type EncoderOf = (format: ExportFormat, options: WriterOptions) => RowEncoder;

/**
 * The worker's connections, one pool per server (opened at the first export, kept while the worker
 * lives; idle connections are closed by the pool).
 */
const databases = new Map<string, Promise<Database>>();

function databaseOf(url: string, connections: number): Promise<Database> {
  let database = databases.get(url);
  if (!database) {
    database = Database.open({ databaseUrl: url, poolSize: 1, streamPoolSize: connections });
    databases.set(url, database);
    database.catch(() => databases.delete(url));
  }
  return database;
}

/** Never aborted: a job whose client went away stops when its `emit` raises (decision 0207). */
const running = new AbortController().signal;

/** The `table-export` task with the encoders `encoderOf` gives. */
export function exportTask(encoderOf: EncoderOf) {
  return async function tableExport(
    input: TableExportInput,
    emit: (part: unknown) => Promise<void>,
  ): Promise<TableExportResult> {
    const database = await databaseOf(input.databaseUrl, input.connections ?? 1);
    const encoder = encoderOf(input.format, {
      sheetName: input.sheetName,
      bom: input.bom,
      modified: input.modified,
    });
    const parts = partSender(emit);
    const pack = input.pack ? packTableRows(input.pack) : undefined;
    let rows = 0;
    // The head goes out at once, so the answer starts before the first page is read.
    await parts.send(await encoder.start(input.columns), true);
    const writer: RowWriter = {
      async start() {},
      async rows(list) {
        rows += list.length;
        await parts.send(await encoder.page(pack ? pack.map(list) : list));
      },
      async end() {},
    };
    await writeSource(
      input.source,
      'postgres',
      (fn) => database.stream(input.organizationId, fn),
      running,
      writer,
    );
    await parts.send(await encoder.end(), true);
    return { rows, bytes: parts.bytes, ...(pack ? { found: pack.found() } : {}) };
  };
}
