import { jsonCell, type RowEncoder } from './cells.ts';
import type { Column } from './columns.ts';

/** NDJSON: one JSON object per row and line (`\n`), keyed by column name; no header. */
export function ndjsonEncoder(): RowEncoder {
  let names: string[] = [];
  return {
    async start(columns: readonly Column[]) {
      names = columns.map((c) => c.name);
      return [];
    },
    async page(rows) {
      if (rows.length === 0) return [];
      let chunk = '';
      for (const row of rows) {
        const object: Record<string, unknown> = {};
        for (let i = 0; i < names.length; i++) object[names[i]!] = jsonCell(row[i]);
        chunk += `${JSON.stringify(object)}\n`;
      }
      return [Buffer.from(chunk)];
    },
    async end() {
      return [];
    },
  };
}
