import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { expect } from 'vitest';
import { API_PREFIX } from '../../src/app.ts';
import { restoreCell } from '../../src/modules/datasets/datasets.csv.ts';
import { VALUE_COLUMNS } from '../../src/modules/exports/exports.columns.ts';
import { cellText } from '../../src/modules/exports/exports.formats.ts';
import type { TestContext } from './app.ts';

/**
 * Readers of the export routes' answers for the exports' tests (src/modules/exports/exports.*.test.ts):
 * each format read back by a reader nobody here wrote (csv-parse, exceljs, DuckDB), as rows by
 * column name. `token()` is the caller unless one is given.
 */
export function exportReaders(t: TestContext, token: () => string) {
  const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

  async function download(path: string, token: string, accept?: string) {
    const res = await t.app.inject({
      method: 'GET',
      url: `${API_PREFIX}${path}`,
      headers: { authorization: `Bearer ${token}`, ...(accept ? { accept } : {}) },
    });
    return res;
  }

  /** The rows of a CSV export as objects by column name, cells restored as the dataset import does. */
  async function csvRows(path: string, as = token()) {
    const res = await download(path, as);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, ...rows] = parse(res.body, { bom: true }) as string[][];
    return {
      header: header!,
      rows: rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, restoreCell(r[i]!)]))),
      raw: res.body,
    };
  }

  async function ndjsonRows(path: string, as = token()) {
    const res = await download(path, as, 'application/x-ndjson');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    return res.body
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  async function xlsxRows(path: string, as = token()) {
    const res = await download(path, as, XLSX);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(XLSX);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    const lines: unknown[][] = [];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      lines.push((row.values as unknown[]).slice(1));
    });
    const [header, ...rows] = lines as string[][];
    return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? null])));
  }

  /** A Parquet export read by DuckDB: its column types and its rows (JSON cells parsed). */
  async function parquetRows(path: string, as = token()) {
    const res = await download(path, as, 'application/vnd.apache.parquet');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(res.headers['content-disposition']).toContain('.parquet');
    const dir = join(import.meta.dirname, '..', '..', 'test-output', 'exports');
    await mkdir(dir, { recursive: true });
    const file = join(dir, `values-${process.pid}.parquet`);
    await writeFile(file, res.rawPayload);
    const duck = await DuckDBInstance.create(':memory:');
    const connection = await duck.connect();
    try {
      const described = await connection.runAndReadAll(`describe select * from read_parquet('${file}')`);
      const types = Object.fromEntries(
        described.getRowObjectsJS().map((r) => [String(r['column_name']), String(r['column_type'])]),
      );
      const read = await connection.runAndReadAll(`select * from read_parquet('${file}')`);
      const json = new Set(VALUE_COLUMNS.filter((c) => c.type === 'json').map((c) => c.name));
      const rows = read
        .getRowObjectsJS()
        .map((r) =>
          Object.fromEntries(
            Object.entries(r).map(([k, v]) => [k, json.has(k) && typeof v === 'string' ? JSON.parse(v) : v]),
          ),
        );
      return { types, rows };
    } finally {
      connection.closeSync();
      duck.closeSync();
    }
  }

  const asText = (rows: Record<string, unknown>[]) =>
    rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, cellText(v)])));

  const byId = (rows: Record<string, string>[], column: string, id: string) => {
    const row = rows.find((r) => r[column] === id);
    expect(row, `${column} ${id}`).toBeDefined();
    return row!;
  };

  const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

  return { XLSX, download, csvRows, ndjsonRows, xlsxRows, parquetRows, asText, byId, iso };
}
