// GET /exports/activities and /exports/history, and the coefficients an activity recorded.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { exportReaders } from '../../../test/helpers/export-readers.ts';
import { createExportWorld, type ExportWorld } from '../../../test/helpers/export-world.ts';

const t = useTestApp();
let w: ExportWorld;

beforeAll(async () => {
  w = await createExportWorld(t);
  // Another organization with the same kind of data: none of it may appear in w's exports.
  await createExportWorld(t);
}, 60_000);

const { csvRows, ndjsonRows, xlsxRows, asText, iso } = exportReaders(t, () => w.tenant.owner.token);

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
