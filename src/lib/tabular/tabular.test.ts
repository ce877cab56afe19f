import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { neutralizeCell } from '../../modules/datasets/index.ts';
import type { RowEncoder } from './cells.ts';
import type { Column, ExportRow } from './columns.ts';
import { csvEncoder } from './csv.ts';
import { ndjsonEncoder } from './ndjson.ts';
import { parquetEncoder } from './parquet.ts';
import { columnLetters, excelSerial, sheetText, xlsxEncoder } from './xlsx.ts';

// Round trips through readers nobody here wrote: csv-parse, exceljs's workbook reader, DuckDB.
const DIR = join(import.meta.dirname, '..', '..', '..', 'test-output', 'exports-encode');

const COLUMNS: Column[] = [
  { name: 'text', type: 'string', description: '' },
  { name: 'year', type: 'integer', description: '' },
  { name: 'amount', type: 'number', description: '' },
  { name: 'at', type: 'datetime', description: '' },
  { name: 'raw', type: 'json', description: '' },
  { name: 'flag', type: 'boolean', description: '' },
];

const AT = new Date(Date.UTC(2025, 2, 4, 5, 6, 7, 891));
const HOSTILE = [
  'plain',
  '中文 ünïcödé',
  'emoji 🌍👩‍🔬',
  'say "hi", then go',
  'line\nbreak',
  'carriage\rreturn',
  'crlf\r\nend',
  '  leading and trailing  ',
  '\tTab first',
  '=1+2',
  '+SUM(A1)',
  '@cmd',
  '-x',
  '＝1+5',
  '<b>&amp;</b>',
];
const NUMBERS = [0.1 + 0.2, 1e21, 2.5e-310, -5, 0];

/** One row per hostile text and per number, and one of empty cells. */
function rows(): ExportRow[] {
  const out: ExportRow[] = HOSTILE.map((text, i) => [text, 2025, i, AT, { k: text }, i % 2 === 0]);
  for (const n of NUMBERS) out.push([String(n), 12, n, new Date(AT.getTime() + 1), [n], false]);
  out.push([null, null, null, null, null, null]);
  return out;
}

/** A time given as ISO text (the values statement formats `enteredAt`) is still a time. */
function textTimeRow(): ExportRow {
  return ['text time', 2025, 1, '2025-03-04T05:06:07.891Z', null, null];
}

async function encode(encoder: RowEncoder, data: ExportRow[], pageRows = 7): Promise<Buffer> {
  const parts = await encoder.start(COLUMNS);
  for (let i = 0; i < data.length; i += pageRows)
    parts.push(...(await encoder.page(data.slice(i, i + pageRows))));
  parts.push(...(await encoder.end()));
  return Buffer.concat(parts);
}

describe('CSV', () => {
  const csv = (bom: boolean) => csvEncoder({ bom, eol: '\r\n', neutralize: neutralizeCell });

  it('starts with a UTF-8 BOM, ends records with CRLF, and reads back exactly', async () => {
    const data = rows();
    const bytes = await encode(csv(true), data);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8');
    expect(text.startsWith('\uFEFFtext,year,amount,at,raw,flag\r\n')).toBe(true);
    expect(text.endsWith(',,,,,\r\n')).toBe(true);
    const back = parse(bytes, { bom: true }) as string[][];
    expect(back[0]).toEqual(COLUMNS.map((c) => c.name));
    expect(back).toHaveLength(data.length + 1);
    HOSTILE.forEach((t, i) => {
      // Formula-like text carries the leading quote (decision 156); everything else is exact.
      expect(back[i + 1]![0]).toBe(neutralizeCell(t));
      expect(back[i + 1]![3]).toBe('2025-03-04T05:06:07.891Z');
      expect(JSON.parse(back[i + 1]![4]!)).toEqual({ k: t });
    });
    expect(back[1 + HOSTILE.indexOf('=1+2')]![0]).toBe("'=1+2");
    expect(back[1 + HOSTILE.indexOf('中文 ünïcödé')]![0]).toBe('中文 ünïcödé');
    NUMBERS.forEach((n, i) => {
      const cell = back[1 + HOSTILE.length + i]![2]!;
      expect(Number(cell)).toBe(n);
    });
    expect(back[1 + HOSTILE.indexOf('-x')]![0]).toBe("'-x");
    expect(back[1 + HOSTILE.length]![2]).toBe('0.30000000000000004');
    expect(back[2 + HOSTILE.length]![2]).toBe('1e+21');
    expect(back[3 + HOSTILE.length]![2]).toBe('2.5e-310');
  });

  it('leaves the BOM out when asked', async () => {
    const bytes = await encode(csv(false), rows());
    expect(bytes.toString('utf8').startsWith('text,year,')).toBe(true);
  });
});

describe('NDJSON', () => {
  it('is one object per line with numbers as numbers', async () => {
    const lines = (await encode(ndjsonEncoder(), rows())).toString('utf8').trimEnd().split('\n');
    const objects = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects[0]).toEqual({
      text: 'plain',
      year: 2025,
      amount: 0,
      at: '2025-03-04T05:06:07.891Z',
      raw: { k: 'plain' },
      flag: true,
    });
    expect(objects.slice(HOSTILE.length, HOSTILE.length + NUMBERS.length).map((o) => o['amount'])).toEqual(
      NUMBERS,
    );
  });
});

describe('XLSX', () => {
  it('reads back in exceljs: dates are dates, numbers numbers, white space and CR/LF kept', async () => {
    const data = rows();
    const bytes = await encode(xlsxEncoder({ sheetName: 'values-2025', modified: AT }), data);
    await mkdir(DIR, { recursive: true });
    await writeFile(join(DIR, 'hostile.xlsx'), bytes);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.name).toBe('values-2025');
    expect(sheet.rowCount).toBe(data.length + 1);
    expect(sheet.getRow(1).values).toEqual([undefined, ...COLUMNS.map((c) => c.name)]);
    HOSTILE.forEach((t, i) => {
      const row = sheet.getRow(i + 2);
      // Text is text (never a formula), exactly as sent, leading spaces, CR and LF included.
      expect(row.getCell(1).value).toBe(t);
      expect(row.getCell(1).type).toBe(ExcelJS.ValueType.String);
      expect(row.getCell(2).value).toBe(2025);
      const at = row.getCell(4).value;
      expect(at).toBeInstanceOf(Date);
      expect((at as Date).getTime()).toBe(AT.getTime());
      expect(row.getCell(4).numFmt).toBe('yyyy-mm-dd hh:mm:ss');
      expect(row.getCell(6).value).toBe(i % 2 === 0);
    });
    NUMBERS.forEach((n, i) => {
      const cell = sheet.getRow(HOSTILE.length + 2 + i).getCell(3);
      expect(cell.type).toBe(ExcelJS.ValueType.Number);
      expect(cell.value).toBe(n);
    });
    const empty = sheet.getRow(data.length + 1);
    expect(empty.getCell(1).value).toBeNull();
  });

  it('escapes what XML cannot carry the way Office reads it back', () => {
    expect(sheetText('a\r\nb')).toBe('a&#13;\nb');
    expect(sheetText('<&>"')).toBe('&lt;&amp;&gt;&quot;');
    expect(sheetText('bell\u0007')).toBe('bell_x0007_');
    expect(sheetText('literal _x000D_ kept')).toBe('literal _x005F_x000D_ kept');
    expect(sheetText('😀 \uD800')).toBe('😀 _xD800_');
    expect(columnLetters(0)).toBe('A');
    expect(columnLetters(25)).toBe('Z');
    expect(columnLetters(26)).toBe('AA');
    expect(columnLetters(701)).toBe('ZZ');
    expect(columnLetters(702)).toBe('AAA');
    // 1900-01-01 is day 2 in Excel's (1900 leap year) numbering; 2025-01-01 12:00 is 45658.5.
    expect(excelSerial(new Date(Date.UTC(1900, 0, 1)))).toBe(2);
    expect(excelSerial(new Date(Date.UTC(2025, 0, 1, 12)))).toBe(45658.5);
  });

  it('hands bytes out page by page: nothing accumulates', async () => {
    const encoder = xlsxEncoder({ sheetName: 'big', modified: AT });
    await encoder.start(COLUMNS);
    const page = Array.from(
      { length: 500 },
      (_, i): ExportRow => [`row ${i} ${'x'.repeat(40)}`, 2025, i, AT, null, true],
    );
    let largest = 0;
    let total = 0;
    for (let p = 0; p < 60; p++) {
      const out = (await encoder.page(page)).reduce((n, b) => n + b.length, 0);
      largest = Math.max(largest, out);
      total += out;
    }
    total += (await encoder.end()).reduce((n, b) => n + b.length, 0);
    // 30,000 rows make about 5 MB of sheet XML; the output came along the way, each page's
    // share bounded (not held back until the end).
    expect(total).toBeGreaterThan(50_000);
    expect(largest).toBeLessThan(1_000_000);
  });
});

describe('a time given as ISO text', () => {
  it('is a date cell in XLSX and a TIMESTAMP in Parquet', async () => {
    const xlsx = await encode(xlsxEncoder({ sheetName: 's', modified: AT }), [textTimeRow()]);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx as unknown as ArrayBuffer);
    const cell = workbook.worksheets[0]!.getRow(2).getCell(4).value;
    expect(cell).toBeInstanceOf(Date);
    expect((cell as Date).getTime()).toBe(AT.getTime());
    await mkdir(DIR, { recursive: true });
    const file = join(DIR, 'text-time.parquet');
    await writeFile(file, await encode(parquetEncoder(), [textTimeRow()]));
    const duck = await DuckDBInstance.create(':memory:');
    const connection = await duck.connect();
    try {
      const read = await connection.runAndReadAll(
        `select epoch_ms("at")::double as ms from read_parquet('${file}')`,
      );
      expect(read.getRowObjectsJS()).toEqual([{ ms: AT.getTime() }]);
    } finally {
      connection.closeSync();
      duck.closeSync();
    }
  });
});

describe('Parquet', () => {
  it('reads back in DuckDB with typed columns', async () => {
    const data = rows();
    const bytes = await encode(parquetEncoder({ rowGroupRows: 8 }), data);
    await mkdir(DIR, { recursive: true });
    const file = join(DIR, 'hostile.parquet');
    await writeFile(file, bytes);
    const duck = await DuckDBInstance.create(':memory:');
    const connection = await duck.connect();
    try {
      const types = await connection.runAndReadAll(`describe select * from read_parquet('${file}')`);
      expect(types.getRowObjectsJS().map((r) => [r['column_name'], r['column_type']])).toEqual([
        ['text', 'VARCHAR'],
        ['year', 'INTEGER'],
        ['amount', 'DOUBLE'],
        ['at', 'TIMESTAMP WITH TIME ZONE'],
        ['raw', 'JSON'],
        ['flag', 'BOOLEAN'],
      ]);
      const groups = await connection.runAndReadAll(
        `select count(distinct row_group_id)::integer as n from parquet_metadata('${file}')`,
      );
      // 21 rows in row groups of at most 8.
      expect(groups.getRowObjectsJS()[0]!['n']).toBe(3);
      const read = await connection.runAndReadAll(
        `select text, year, amount, epoch_ms("at")::double as at_ms, raw::varchar as raw, flag from read_parquet('${file}')`,
      );
      const back = read.getRowObjectsJS();
      expect(back).toHaveLength(data.length);
      HOSTILE.forEach((t, i) => {
        expect(back[i]).toEqual({
          text: t,
          year: 2025,
          amount: i,
          at_ms: AT.getTime(),
          raw: JSON.stringify({ k: t }),
          flag: i % 2 === 0,
        });
      });
      NUMBERS.forEach((n, i) => {
        expect(back[HOSTILE.length + i]!['amount']).toBe(n);
        expect(back[HOSTILE.length + i]!['year']).toBe(12);
      });
      expect(back.at(-1)).toEqual({
        text: null,
        year: null,
        amount: null,
        at_ms: null,
        raw: null,
        flag: null,
      });
    } finally {
      connection.closeSync();
      duck.closeSync();
    }
  });
});
