/**
 * The heavy-work task that makes a whole export in a worker thread (`table-export`, served by
 * src/heavy-worker.ts; decision 0227): on PostgreSQL the worker opens a connection of its own,
 * reads the export's rows a page at a time (the same cursor, tenant and role as on the request
 * loop), turns them into cells and encodes them, and sends the bytes back as parts with
 * backpressure. The request loop only moves those bytes to the client.
 */
import { Database } from '../../db/client.ts';
import { partSender } from '../../lib/tabular/task.ts';
import type { Column } from './exports.columns.ts';
import { type ExportFormat, encoderOf, type RowWriter } from './exports.formats.ts';
import { type ExportSource, writeSource } from './exports.source.ts';

export interface TableExportInput {
  /** The PostgreSQL server (`Database.serverUrl`); PGlite exports are read on the request loop. */
  databaseUrl: string;
  organizationId: string;
  format: ExportFormat;
  columns: Column[];
  /** XLSX: the worksheet's name; the zip entries' time (the export's start). */
  sheetName: string;
  modified: Date;
  /** CSV: a UTF-8 byte order mark first. */
  bom: boolean;
  source: ExportSource;
}

/**
 * The worker's connections, one pool per server: a worker runs one job at a time, so one
 * connection serves its exports (opened at the first, kept while the worker lives).
 */
const databases = new Map<string, Promise<Database>>();

function databaseOf(url: string): Promise<Database> {
  let database = databases.get(url);
  if (!database) {
    database = Database.open({ databaseUrl: url, poolSize: 1, streamPoolSize: 1 });
    databases.set(url, database);
    database.catch(() => databases.delete(url));
  }
  return database;
}

/** Never aborted: a job whose client went away stops when its `emit` raises (decision 0207). */
const running = new AbortController().signal;

export async function tableExportTask(
  input: TableExportInput,
  emit: (part: unknown) => Promise<void>,
): Promise<{ rows: number; bytes: number }> {
  const database = await databaseOf(input.databaseUrl);
  const encoder = encoderOf(input.format, {
    sheetName: input.sheetName,
    bom: input.bom,
    modified: input.modified,
  });
  const parts = partSender(emit);
  let rows = 0;
  // The head goes out at once, so the answer starts before the first page is read.
  await parts.send(await encoder.start(input.columns), true);
  const writer: RowWriter = {
    async start() {},
    async rows(list) {
      rows += list.length;
      await parts.send(await encoder.page(list));
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
  return { rows, bytes: parts.bytes };
}
