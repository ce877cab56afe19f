import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { neutralizeCell } from '../datasets/datasets.csv.ts';
import { cellText, createWriter, csvLines } from './exports.formats.ts';
import { formatOf } from './exports.stream.ts';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

describe('formatOf', () => {
  it.each([
    [undefined, 'csv'],
    ['*/*', 'csv'],
    ['application/json', 'csv'],
    ['text/csv', 'csv'],
    ['application/x-ndjson', 'ndjson'],
    [XLSX, 'xlsx'],
    ['text/csv;q=0.5, application/x-ndjson', 'ndjson'],
    [`application/x-ndjson;q=0.2, ${XLSX};q=0.9`, 'xlsx'],
    ['application/*', 'csv'],
  ])('Accept %s -> %s', (accept, format) => {
    expect(formatOf(accept)).toBe(format);
  });
});

describe('the CSV writer', () => {
  it('neutralises formulas but not numbers, and writes empty cells for null', async () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const writer = createWriter('csv', out);
    await writer.start([
      { name: 'a', type: 'string', description: '' },
      { name: 'b', type: 'json', description: '' },
    ]);
    await writer.rows([
      ['=HYPERLINK("x")', -5],
      ['@SUM(A1)', null],
      [new Date(Date.UTC(2025, 0, 2)), { k: 'v' }],
    ]);
    await writer.end();
    out.end();
    expect(Buffer.concat(chunks).toString()).toBe(
      '\uFEFFa,b\r\n"\'=HYPERLINK(""x"")",-5\r\n\'@SUM(A1),\r\n2025-01-02T00:00:00.000Z,"{""k"":""v""}"\r\n',
    );
  });

  it('writes every kind of cell as text the same way', () => {
    expect([null, undefined, 1.5, true, 'x', [1]].map(cellText)).toEqual(['', '', '1.5', 'true', 'x', '[1]']);
  });

  it('writes exactly what csv-stringify writes, and reads back to the cells', () => {
    const cells = [
      '',
      'plain',
      'a,b',
      'say "hi"',
      '"',
      '""',
      'line\nbreak',
      'carriage\rreturn',
      'crlf\r\n',
      '\n',
      ' spaced ',
      'Group / UK / Plant 1',
      'ünïcödé ✓ 🌍',
      '=1+2',
      '-5',
      '-x',
      "'=already",
      '\tTab',
      '@x,"y"\n',
      ';',
      null,
      undefined,
      -0.5,
      1e21,
      true,
      new Date(Date.UTC(2025, 11, 31, 23, 59, 59, 999)),
      { k: 'v,"w"' },
      [1, 'a\nb'],
    ];
    // Every cell alone, and every pair in both orders (first, middle and last positions).
    const rows: unknown[][] = cells.map((c) => [c]);
    for (const a of cells) for (const b of cells) rows.push([a, b, a]);
    const expected = stringify(rows.map((row) => row.map((cell) => neutralizeCell(cellText(cell)))));
    const written = csvLines(rows);
    expect(written).toBe(expected);
    const back = parse(written, { relax_column_count: true }) as string[][];
    expect(back).toEqual(rows.map((row) => row.map((cell) => neutralizeCell(cellText(cell)))));
  });
});
