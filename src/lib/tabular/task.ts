/**
 * The heavy-work task that encodes a table off the request loop (src/heavy-worker.ts serves it as
 * `table-encode`): the columns come with the job, the rows as its streamed input (pages, sent with
 * backpressure by the caller), the bytes go back as parts with backpressure (the consumer writes
 * them to the answer). Only what one page and the compressor hold is alive at a time.
 */
import type { RowEncoder } from './cells.ts';
import type { Column, ExportRow } from './columns.ts';
import { parquetEncoder } from './parquet.ts';
import { xlsxEncoder } from './xlsx.ts';

export interface TableEncodeInput {
  format: 'xlsx' | 'parquet';
  columns: Column[];
  /** XLSX: the worksheet's name and the zip entries' time. */
  sheetName?: string;
  modified?: Date;
}

/** Parts smaller than this are joined before they cross (fewer messages for the same bytes). */
const PART_BYTES = 64 * 1024;

/**
 * Joins an encoder's chunks into parts of at least `PART_BYTES` before `emit` sends them across
 * (`flush` sends what is held at once: the head, so that the answer starts, and the end); `bytes`
 * counts what was sent.
 */
export function partSender(emit: (part: unknown) => Promise<void>) {
  let held: Buffer[] = [];
  let heldBytes = 0;
  const sender = {
    bytes: 0,
    async send(chunks: Buffer[], flush = false): Promise<void> {
      for (const chunk of chunks) {
        held.push(chunk);
        heldBytes += chunk.length;
        sender.bytes += chunk.length;
        if (heldBytes >= PART_BYTES) await sender.flush();
      }
      if (flush) await sender.flush();
    },
    async flush(): Promise<void> {
      if (heldBytes === 0) return;
      const part = held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
      held = [];
      heldBytes = 0;
      await emit(part);
    },
  };
  return sender;
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
