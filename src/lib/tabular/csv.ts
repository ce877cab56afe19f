import { cellText, type RowEncoder } from './cells.ts';
import type { Column, ExportRow } from './columns.ts';

/** Characters that make a CSV field need quotes (RFC 4180: separator, quote, line breaks). */
const NEEDS_QUOTES = /[",\n\r]/;
const QUOTE = /"/g;
/** The UTF-8 byte order mark: tells Excel and LibreOffice's import that the file is UTF-8. */
export const UTF8_BOM = '\uFEFF';

export interface CsvOptions {
  /** Start the file with a UTF-8 byte order mark (the exports' default; `bom=false` leaves it out). */
  bom: boolean;
  /** Record separator: `\r\n` (RFC 4180, the exports) or `\n`. */
  eol: '\r\n' | '\n';
  /** What a text cell becomes before quoting (the formula neutraliser, decision 156). */
  neutralize: (cell: string) => string;
}

/**
 * Rows as CSV records, each cell neutralised: `,` between fields, `eol` after each record, a field
 * quoted only when it holds `,`, `"`, CR or LF, quotes doubled, empty cells left empty (what
 * csv-stringify writes with its defaults and `record_delimiter`, written out here because the
 * general library cost four times as much per row in the exports' profile; a test compares both).
 */
export function csvRecords(
  rows: readonly ExportRow[],
  eol: '\r\n' | '\n',
  neutralize: (cell: string) => string,
): string {
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const cell = neutralize(cellText(row[i]));
      if (i > 0) text += ',';
      text += NEEDS_QUOTES.test(cell) ? `"${cell.replace(QUOTE, '""')}"` : cell;
    }
    text += eol;
  }
  return text;
}

/** CSV: a header row of the column names, then a record per row. */
export function csvEncoder(options: CsvOptions): RowEncoder {
  const { bom, eol, neutralize } = options;
  return {
    async start(columns: readonly Column[]) {
      const head = csvRecords([columns.map((c) => c.name)], eol, neutralize);
      return [Buffer.from(bom ? UTF8_BOM + head : head)];
    },
    async page(rows) {
      return rows.length === 0 ? [] : [Buffer.from(csvRecords(rows, eol, neutralize))];
    },
    async end() {
      return [];
    },
  };
}
