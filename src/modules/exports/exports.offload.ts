import type { Writable } from 'node:stream';
import type { StreamLane } from '../../lib/heavy/lane.ts';
import type { HeavyWork } from '../../lib/heavy/pool.ts';
import type { TableEncodeInput } from '../../lib/tabular/task.ts';
import type { Column } from './exports.columns.ts';
import { type ExportFormat, encoderOf, put, type RowWriter } from './exports.formats.ts';
import { exportTask, type TableExportInput, type TableExportResult } from './exports.worker-task.ts';

/** The heavy pool's `table-export` task (src/heavy-worker.ts): every format's encoder. */
export const tableExportTask = exportTask(encoderOf);

/** Formats whose encoding (XML and deflate; Parquet's pages and Snappy) runs in the heavy pool. */
export const OFF_LOOP_FORMATS: ReadonlySet<ExportFormat> = new Set(['xlsx', 'parquet']);

/**
 * What one export job states it holds in its worker (against the pool's memory budget): two pages
 * of rows in flight, the sheet's buffer and the compressor's window, with room to spare.
 */
export const EXPORT_JOB_BYTES = 32 * 1024 * 1024;

export interface OffLoopExport {
  organizationId: string;
  format: 'xlsx' | 'parquet';
  columns: Column[];
  sheetName: string;
  modified: Date;
}

/**
 * A writer whose encoding runs in the heavy-work pool (decision 0207), as one job of the caller's
 * organization (its fair share: it waits its turn, or is refused with 429). The request loop reads
 * the pages and moves bytes: each page of rows is sent to the worker (`feed`, which waits while
 * the worker is two pages behind), the bytes it gives back are written to `out` (which waits while
 * the client is behind, and the worker waits for that in turn). Await `started` before reading
 * anything: the job may wait in the queue, and no connection should be held meanwhile.
 */
export function offLoopWriter(
  heavy: HeavyWork,
  spec: OffLoopExport,
  out: Writable,
  signal: AbortSignal,
): { started: Promise<void>; writer: RowWriter } {
  const input: TableEncodeInput = {
    format: spec.format,
    columns: spec.columns,
    sheetName: spec.sheetName,
    modified: spec.modified,
  };
  const job = heavy.stream<Uint8Array, { rows: number; bytes: number }>({
    organizationId: spec.organizationId,
    task: 'table-encode',
    input,
    bytes: EXPORT_JOB_BYTES,
    signal,
    feed: true,
  });
  let moving: Promise<void> | undefined;
  const writer: RowWriter = {
    async start() {
      moving = (async () => {
        for await (const part of job)
          await put(out, Buffer.from(part.buffer, part.byteOffset, part.byteLength));
      })();
      // Seen when `end` awaits it; meanwhile a failure also fails the job, and so `rows`.
      moving.catch(() => undefined);
    },
    rows: (rows) => job.feed(rows),
    async end() {
      job.end();
      await moving;
      await job.result;
    },
  };
  return { started: job.started, writer };
}

/**
 * A whole export made in a worker (decisions 0227 and 0235): the worker reads the rows on a
 * connection of its own, makes the cells and the bytes; this side writes its parts to `out`
 * (waiting while the client is behind; the worker waits for that in turn). XLSX and Parquet run
 * in the heavy pool (`heavy`: await `started` first, the job may wait for its organization's turn
 * or be refused with 429); CSV and NDJSON in the export lane (`lane`: started at once, many at a
 * time, within the export gate's places). `done` settles when the last byte was written, or with
 * the job's failure.
 */
export function workerExport(
  runner: { heavy: HeavyWork } | { lane: StreamLane },
  input: TableExportInput,
  out: Writable,
  signal: AbortSignal,
): { started: Promise<void>; done: () => Promise<TableExportResult> } {
  const job =
    'heavy' in runner
      ? runner.heavy.stream<Uint8Array, TableExportResult>({
          organizationId: input.organizationId,
          task: 'table-export',
          input,
          bytes: EXPORT_JOB_BYTES,
          signal,
        })
      : runner.lane.stream<Uint8Array, TableExportResult>({ task: 'table-export', input, signal });
  const started: Promise<void> = 'started' in job ? (job.started as Promise<void>) : Promise.resolve();
  return {
    started,
    async done() {
      for await (const part of job)
        await put(out, Buffer.from(part.buffer, part.byteOffset, part.byteLength));
      return job.result;
    },
  };
}
