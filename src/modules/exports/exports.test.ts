import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createExportWorld, type ExportWorld } from '../../../test/helpers/export-world.ts';
import { API_PREFIX } from '../../app.ts';
import { restoreCell } from '../datasets/datasets.csv.ts';
import { VALUE_COLUMNS } from './exports.columns.ts';
import { cellText } from './exports.formats.ts';

const t = useTestApp();
let w: ExportWorld;
let other: ExportWorld;

beforeAll(async () => {
  w = await createExportWorld(t);
  // Another organization with the same kind of data: none of it may appear in w's exports.
  other = await createExportWorld(t);
}, 60_000);

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
async function csvRows(path: string, token = w.tenant.owner.token) {
  const res = await download(path, token);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  const [header, ...rows] = parse(res.body, { bom: true }) as string[][];
  return {
    header: header!,
    rows: rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, restoreCell(r[i]!)]))),
    raw: res.body,
  };
}

async function ndjsonRows(path: string, token = w.tenant.owner.token) {
  const res = await download(path, token, 'application/x-ndjson');
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
  return res.body
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function xlsxRows(path: string, token = w.tenant.owner.token) {
  const res = await download(path, token, XLSX);
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
async function parquetRows(path: string, token = w.tenant.owner.token) {
  const res = await download(path, token, 'application/vnd.apache.parquet');
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
  expect(res.headers['content-disposition']).toContain('.parquet');
  const dir = join(import.meta.dirname, '..', '..', '..', 'test-output', 'exports');
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

describe('GET /exports/values', () => {
  it('answers every column of every kind of value, by hand', async () => {
    const { header, rows, raw } = await csvRows('/exports/values?year=2025');
    expect(header).toEqual([
      'valueId',
      'siteId',
      'siteCode',
      'siteName',
      'sitePath',
      'formId',
      'formName',
      'elementId',
      'elementKey',
      'elementLabel',
      'elementType',
      'year',
      'periodUnit',
      'periodLabel',
      'timestamp',
      'value',
      'unit',
      'originalValue',
      'selectedUnit',
      'status',
      'enteredByName',
      'enteredByEmail',
      'enteredAt',
      'reviewedByName',
      'reviewedByEmail',
      'reviewedAt',
      'reviewComment',
      'submissionId',
      'importRunId',
      'importRows',
      'evidenceFileIds',
      'evidenceFileNames',
      'lockId',
      'lockedAt',
      'lockedByName',
    ]);
    // 6 values on Plant 1 and the imported one on Other; nothing of the other organization.
    expect(rows).toHaveLength(7);
    expect(raw).not.toContain(other.tenant.organizationId);
    for (const id of Object.values(other.valueIds)) expect(raw).not.toContain(id);
    expect(rows.map((r) => r['valueId'])).toEqual([...rows.map((r) => r['valueId'])].sort());

    const collector = { name: `COLLECTOR ${w.tenant.collector.email}`, email: w.tenant.collector.email };
    const mwh = byId(rows, 'valueId', w.valueIds.mwh);
    const submissionId = mwh['submissionId']!;
    expect(submissionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(mwh['enteredAt']).toMatch(iso);
    expect(mwh['lockedAt']).toMatch(iso);
    // 1.5 MWh entered, stored as 1.5 x 1000 = 1500 kWh.
    expect(mwh).toEqual({
      valueId: w.valueIds.mwh,
      siteId: w.sites.plant,
      siteCode: 'P1',
      siteName: 'Plant 1',
      sitePath: 'Group / UK / Plant 1',
      formId: w.form.id,
      formName: 'Energy',
      elementId: w.elementId('elec'),
      elementKey: 'elec',
      elementLabel: 'Electricity',
      elementType: 'NUMBER',
      year: '2025',
      periodUnit: '1',
      periodLabel: '2025-01',
      timestamp: '',
      value: '1500',
      unit: 'kWh',
      originalValue: '1.5',
      selectedUnit: 'MWh',
      status: 'COMPLETED',
      enteredByName: collector.name,
      enteredByEmail: collector.email,
      enteredAt: mwh['enteredAt'],
      reviewedByName: '',
      reviewedByEmail: '',
      reviewedAt: '',
      reviewComment: '',
      submissionId,
      importRunId: '',
      importRows: '',
      evidenceFileIds: '',
      evidenceFileNames: '',
      lockId: w.lockId,
      lockedAt: mwh['lockedAt'],
      lockedByName: 'Owner',
    });

    const approved = byId(rows, 'valueId', w.valueIds.approved);
    expect(approved).toMatchObject({
      periodUnit: '2',
      periodLabel: '2025-02',
      value: '200',
      originalValue: '',
      selectedUnit: '',
      status: 'APPROVED',
      reviewedByName: 'Owner',
      reviewedByEmail: w.tenant.owner.email,
      reviewComment: '',
      lockId: '', // the lock covers January only
      submissionId,
    });
    expect(approved['reviewedAt']).toMatch(iso);

    const rejected = byId(rows, 'valueId', w.valueIds.rejected);
    expect(rejected).toMatchObject({
      periodLabel: '2025-03',
      value: '300',
      status: 'REJECTED',
      reviewedByName: 'Owner',
      reviewComment: 'meter photo missing',
    });

    // The formula is neutralised in the file (and restored by the import's rule).
    expect(raw).toContain(`,'=1+2,`);
    expect(byId(rows, 'valueId', w.valueIds.note)).toMatchObject({
      elementType: 'TEXT',
      value: '=1+2',
      unit: '',
    });

    expect(byId(rows, 'valueId', w.valueIds.doc)).toMatchObject({
      elementType: 'FILE',
      value: w.mediaId,
      evidenceFileIds: w.mediaId,
      evidenceFileNames: 'evidence.pdf',
      lockId: w.lockId,
    });
    expect(byId(rows, 'valueId', w.valueIds.fuel)).toMatchObject({
      elementType: 'ACTIVITY',
      value: '[{"kind":"diesel","litres":100}]',
    });

    const imported = byId(rows, 'valueId', w.valueIds.imported);
    expect(imported).toMatchObject({
      siteId: w.sites.other,
      siteCode: 'O',
      sitePath: 'Other',
      periodLabel: '2025-04',
      value: '42',
      unit: 'kWh',
      status: 'COMPLETED',
      enteredByName: 'Owner',
      importRunId: w.runId,
      importRows: 'Electricity:0',
      lockId: '',
    });
    expect(imported['submissionId']).not.toBe(submissionId);
  });

  it('gives the same rows as CSV, NDJSON and XLSX', async () => {
    const path = '/exports/values?year=2025';
    const csv = (await csvRows(path)).rows;
    const ndjson = await ndjsonRows(path);
    const xlsx = await xlsxRows(path);
    expect(asText(ndjson)).toEqual(csv);
    expect(asText(xlsx)).toEqual(csv);
    // NDJSON keeps types: numbers, nulls and structured JSON.
    const mwh = ndjson.find((r) => r['valueId'] === w.valueIds.mwh)!;
    expect(mwh).toMatchObject({
      value: 1500,
      originalValue: 1.5,
      year: 2025,
      timestamp: null,
      reviewedAt: null,
    });
    expect(ndjson.find((r) => r['valueId'] === w.valueIds.fuel)!['value']).toEqual([
      { kind: 'diesel', litres: 100 },
    ]);
    // A worksheet cell is a number where the value is one, and text (never a formula) otherwise.
    expect(xlsx.find((r) => r['valueId'] === w.valueIds.mwh)!['value']).toBe(1500);
    expect(xlsx.find((r) => r['valueId'] === w.valueIds.note)!['value']).toBe('=1+2');
    // Times are date cells (exceljs reads them back as Dates, to the millisecond).
    const entered = xlsx.find((r) => r['valueId'] === w.valueIds.mwh)!['enteredAt'];
    expect(entered).toBeInstanceOf(Date);
    expect((entered as unknown as Date).toISOString()).toBe(
      byId(csv, 'valueId', w.valueIds.mwh)['enteredAt'],
    );
  });

  it('answers Parquet with typed columns: the same rows, read by DuckDB', async () => {
    const path = '/exports/values?year=2025';
    const csv = (await csvRows(path)).rows;
    const { types, rows } = await parquetRows(path);
    expect(types).toMatchObject({
      valueId: 'VARCHAR',
      year: 'INTEGER',
      periodUnit: 'INTEGER',
      enteredAt: 'TIMESTAMP WITH TIME ZONE',
      value: 'JSON',
    });
    expect(asText(rows)).toEqual(csv);
    const mwh = rows.find((r) => r['valueId'] === w.valueIds.mwh)!;
    expect(mwh['value']).toBe(1500);
    expect(mwh['originalValue']).toBe(1.5);
    expect(mwh['enteredAt']).toBeInstanceOf(Date);
  });

  it('starts CSV with a BOM unless bom=false, and ends records with CRLF', async () => {
    const withBom = await download('/exports/values?year=2025', w.tenant.owner.token);
    expect(withBom.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const without = await download('/exports/values?year=2025&bom=false', w.tenant.owner.token);
    expect(without.body.startsWith('valueId,siteId,')).toBe(true);
    expect(without.body).toBe(withBom.body.slice(1));
    // Every line break between records is CRLF (text cells keep their own line breaks).
    const records = parse(without.body) as string[][];
    expect(without.body.split('\r\n').length - 1).toBeGreaterThanOrEqual(records.length);
    expect(without.body.replace(/"[^"]*"/g, '').match(/(?<!\r)\n/g)).toBeNull();
    expect(without.body.endsWith('\r\n')).toBe(true);
  });

  it('filters by form, sites with their descendants, periods, statuses and time', async () => {
    const ids = async (query: string) =>
      (await csvRows(`/exports/values?year=2025&${query}`)).rows.map((r) => r['valueId']).sort();
    const plantIds = Object.entries(w.valueIds)
      .filter(([k]) => k !== 'imported')
      .map(([, v]) => v)
      .sort();
    expect(await ids(`siteIds=${w.sites.group}`)).toEqual(plantIds);
    expect(await ids(`siteIds=${w.sites.other}`)).toEqual([w.valueIds.imported]);
    expect(await ids(`formId=${w.form.id}&periodUnits=2,3`)).toEqual(
      [w.valueIds.approved, w.valueIds.rejected].sort(),
    );
    expect(await ids('statuses=APPROVED&statuses=REJECTED')).toEqual(
      [w.valueIds.approved, w.valueIds.rejected].sort(),
    );
    expect(await ids(`updatedSince=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
    expect(await ids(`formId=${other.form.id}`.replace(other.form.id, w.form.id))).toHaveLength(7);
    expect((await csvRows('/exports/values?year=2024')).rows).toEqual([]);
  });

  it('refuses bad filters with a 400 naming the field', async () => {
    const refused = async (query: string, field: string) => {
      const res = await api(t, 'GET', `/exports/values?${query}`, { token: w.tenant.owner.token });
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(res.body.issues), query).toContain(field);
    };
    await refused('formId=1', 'year');
    await refused('year=2025&formId=nope', 'formId');
    await refused(`year=2025&formId=${other.form.id}`, 'formId');
    await refused(`year=2025&siteIds=${other.sites.plant}`, 'siteIds');
    await refused('year=2025&siteIds=x', 'siteIds');
    await refused('year=2025&periodUnits=13', 'periodUnits');
    await refused('year=2025&periodUnits=1.5', 'periodUnits');
    await refused('year=2025&statuses=DONE', 'statuses');
    await refused('year=2025&bom=maybe', 'bom');
    await refused('year=2025&updatedSince=yesterday', 'updatedSince');
    await refused('year=2025&color=red', 'color');
  });

  it('shows a viewer only the sites assigned to them (and their sub-sites)', async () => {
    const { rows } = await csvRows('/exports/values?year=2025', w.tenant.viewer.token);
    expect(new Set(rows.map((r) => r['siteId']))).toEqual(new Set([w.sites.plant]));
    expect(rows).toHaveLength(6);
    const res = await api(t, 'GET', `/exports/values?year=2025&siteIds=${w.sites.other}`, {
      token: w.tenant.viewer.token,
    });
    expect(res.status).toBe(403);
  });
});

describe('GET /exports/activities', () => {
  it('flattens the inputs in the definition’s order and names the code that calculated', async () => {
    const { header, rows } = await csvRows('/exports/activities?year=2025');
    expect(header).toEqual([
      'activityId',
      'valueId',
      'position',
      'siteId',
      'siteCode',
      'siteName',
      'sitePath',
      'formId',
      'formName',
      'elementKey',
      'year',
      'periodUnit',
      'periodLabel',
      'definitionId',
      'definitionKey',
      'input.litres',
      'input.kind',
      'value',
      'unit',
      'metadata',
      'calcCodeSha256',
      'coefficients',
      'coefficientsText',
      'enteredByName',
      'enteredByEmail',
      'updatedAt',
    ]);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row['updatedAt']).toMatch(iso);
    expect(row).toEqual({
      activityId: w.activityId,
      valueId: w.valueIds.fuel,
      position: '0',
      siteId: w.sites.plant,
      siteCode: 'P1',
      siteName: 'Plant 1',
      sitePath: 'Group / UK / Plant 1',
      formId: w.form.id,
      formName: 'Energy',
      elementKey: 'fuel',
      year: '2025',
      periodUnit: '1',
      periodLabel: '2025-01',
      definitionId: row['definitionId'],
      definitionKey: w.definitionKey,
      'input.litres': '100',
      'input.kind': 'diesel',
      // 100 l x 2.5 (diesel-ef, 2025) + 100 l x 0.5 (diesel-wtt, 2024) = 250 + 50 = 300.
      value: '300',
      unit: 'kgCO2e',
      metadata: '{"kind":"diesel"}',
      calcCodeSha256: createHash('sha256').update(w.calcCode).digest('hex'),
      coefficients: JSON.stringify([
        {
          key: 'diesel-ef',
          datasetId: w.datasetId,
          datasetName: 'Fuel factors',
          datasetItemId: w.itemIds.ef,
          year: 2025,
          value: 2.5,
          unit: 'kgCO2e',
        },
        {
          key: 'diesel-wtt',
          datasetId: w.datasetId,
          datasetName: 'Fuel factors',
          datasetItemId: w.itemIds.wtt,
          year: 2024,
          value: 0.5,
          unit: 'kgCO2e',
        },
      ]),
      coefficientsText:
        'diesel-ef (Fuel factors, 2025) = 2.5 kgCO2e; diesel-wtt (Fuel factors, 2024) = 0.5 kgCO2e',
      enteredByName: `COLLECTOR ${w.tenant.collector.email}`,
      enteredByEmail: w.tenant.collector.email,
      updatedAt: row['updatedAt'],
    });
    const ndjson = await ndjsonRows('/exports/activities?year=2025');
    expect(asText(ndjson)).toEqual(rows);
    expect(asText(await xlsxRows('/exports/activities?year=2025'))).toEqual(rows);
    expect((await csvRows('/exports/activities?year=2025&key=nothing')).rows).toEqual([]);
  });
});

describe('GET /exports/history', () => {
  it('lists every change with before, after, who, when and why', async () => {
    const { rows } = await csvRows('/exports/history?year=2025');
    // 7 value creations, 2 reviews, 1 activity creation.
    expect(rows).toHaveLength(10);
    const review = rows.find((r) => r['recordId'] === w.valueIds.rejected && r['action'] === 'REVIEW')!;
    expect(review).toMatchObject({
      recordType: 'value',
      userName: 'Owner',
      userEmail: w.tenant.owner.email,
      comment: 'meter photo missing',
      siteId: w.sites.plant,
      sitePath: 'Group / UK / Plant 1',
      elementKey: 'elec',
      periodLabel: '2025-03',
    });
    expect(JSON.parse(review['before']!)).toMatchObject({ value: 300, status: 'COMPLETED' });
    expect(JSON.parse(review['after']!)).toMatchObject({ value: 300, status: 'REJECTED' });
    const created = rows.find((r) => r['recordId'] === w.valueIds.mwh)!;
    expect(created).toMatchObject({ action: 'CREATE', before: '' });
    expect(JSON.parse(created['after']!)).toMatchObject({ value: 1500, originalValue: 1.5 });
    const activity = rows.find((r) => r['recordType'] === 'activity')!;
    expect(activity).toMatchObject({ recordId: w.activityId, action: 'CREATE', elementKey: 'fuel' });
    expect(JSON.parse(activity['after']!)).toEqual({
      input: { kind: 'diesel', litres: 100 },
      value: 300,
      metadata: { kind: 'diesel' },
    });
    expect(asText(await ndjsonRows('/exports/history?year=2025'))).toEqual(rows);
    expect(asText(await xlsxRows('/exports/history?year=2025'))).toEqual(rows);
    const viewer = (await csvRows('/exports/history?year=2025', w.tenant.viewer.token)).rows;
    expect(viewer).toHaveLength(9);
    expect(viewer.every((r) => r['siteId'] === w.sites.plant)).toBe(true);
  });
});

// Last: it changes the world (a February activity, a coefficient's value).
describe('recorded coefficients', () => {
  it('are those of the activity’s last calculation', async () => {
    const submit = () =>
      api(t, 'POST', '/form-submissions', {
        token: w.tenant.collector.token,
        body: {
          formId: w.form.id,
          siteId: w.sites.plant,
          year: 2025,
          values: [
            { elementId: w.elementId('fuel'), periodUnit: 2, value: [{ litres: 10, kind: 'diesel' }] },
          ],
        },
      });
    const coefficientsOf = async () => {
      const { rows } = await csvRows('/exports/activities?year=2025&periodUnits=2');
      expect(rows).toHaveLength(1);
      return { value: rows[0]!['value'], text: rows[0]!['coefficientsText'] };
    };
    expect((await submit()).status).toBe(200);
    // 10 x 2.5 + 10 x 0.5 = 30.
    expect(await coefficientsOf()).toEqual({
      value: '30',
      text: 'diesel-ef (Fuel factors, 2025) = 2.5 kgCO2e; diesel-wtt (Fuel factors, 2024) = 0.5 kgCO2e',
    });
    await t.database.tenant(w.tenant.organizationId, (tx) =>
      tx.updateTable('dataset_items').set({ value: 3 }).where('id', '=', w.itemIds.ef).execute(),
    );
    // The same input again: calculated with the new factor and rewritten, 10 x 3 + 10 x 0.5 = 35.
    expect((await submit()).status).toBe(200);
    expect(await coefficientsOf()).toEqual({
      value: '35',
      text: 'diesel-ef (Fuel factors, 2025) = 3 kgCO2e; diesel-wtt (Fuel factors, 2024) = 0.5 kgCO2e',
    });
  });
});
