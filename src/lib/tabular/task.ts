/**
 * The heavy-work task that encodes a table off the request loop (src/heavy-worker.ts serves it as
 * `table-encode`): the columns come with the job, the rows as its streamed input (pages, sent with
 * backpressure by the caller), the bytes go back as parts with backpressure (the consumer writes
 * them to the answer). Only what one page and the compressor hold is alive at a time.
 */
import type { RowEncoder } from './cells.ts';
import type { Column, ExportRow } from './columns.ts';
import { parquetEncoder } from './parquet.ts';
import { partSender } from './parts.ts';
import { xlsxEncoder } from './xlsx.ts';

export interface TableEncodeInput {
  format: 'xlsx' | 'parquet';
  columns: Column[];
  /** XLSX: the worksheet's name and the zip entries' time. */
  sheetName?: string;
  modified?: Date;
}

export async function tableEncodeTask(
  input: TableEncodeInput,
  emit: (part: unknown) => Promise<void>,
  feed: AsyncIterable<unknown>,
): Promise<{ rows: number; bytes: number }> {
  const encoder: RowEncoder =
    input.format === 'xlsx'
      ? xlsxEncoder({ sheetName: input.sheetName ?? 'export', modified: input.modified ?? new Date(0) })
      : parquetEncoder();
  let rows = 0;
  const parts = partSender(emit);
  // The head goes out at once, so the answer starts before the first page is encoded.
  await parts.send(await encoder.start(input.columns), true);
  for await (const page of feed) {
    const list = page as ExportRow[];
    rows += list.length;
    await parts.send(await encoder.page(list));
  }
  await parts.send(await encoder.end(), true);
  return { rows, bytes: parts.bytes };
}
