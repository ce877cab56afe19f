// GET /exports/values: every column by hand, the four formats alike, filters, site scope.
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { exportReaders } from '../../../test/helpers/export-readers.ts';
import { createExportWorld, type ExportWorld } from '../../../test/helpers/export-world.ts';

const t = useTestApp();
let w: ExportWorld;
let other: ExportWorld;

beforeAll(async () => {
  w = await createExportWorld(t);
  // Another organization with the same kind of data: none of it may appear in w's exports.
  other = await createExportWorld(t);
}, 60_000);

const { download, csvRows, ndjsonRows, xlsxRows, parquetRows, asText, byId, iso } = exportReaders(
  t,
  () => w.tenant.owner.token,
);

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
