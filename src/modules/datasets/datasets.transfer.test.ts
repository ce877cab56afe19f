import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { buildDataset } from '../../../test/helpers/builders.ts';
import { createDatasetWorld } from '../../../test/helpers/dataset-world.ts';
import type { Member, Tenant } from '../../../test/helpers/factories.ts';

const t = useTestApp();
let tenant: Tenant;
let other: Tenant;
let admin: Member;

beforeAll(async () => {
  ({ tenant, other, admin } = await createDatasetWorld(t));
});

const owner = () => tenant.owner.token;
const exportCsv = async (id: string, token = owner()) => api(t, 'GET', `/datasets/${id}/export`, { token });
const importCsv = (id: string, csvContent: string, token = owner()) =>
  api(t, 'POST', `/datasets/${id}/import`, { token, body: { csvContent } });
const newDataset = async (name = 'Imported') =>
  (await api(t, 'POST', '/datasets', { token: owner(), body: { name } })).body.id as string;

describe('the grid factors story: export, edit the CSV, re-import, see the changes', () => {
  it('works end to end', async () => {
    const datasetId = await newDataset('Grid factors');
    const values = { 2023: 0.207, 2024: 0.193, 2025: 0.177 };
    for (const [year, value] of Object.entries(values)) {
      const res = await api(t, 'POST', '/dataset-items', {
        token: owner(),
        body: {
          name: 'UK grid electricity',
          datasetId,
          data: { key: 'grid-uk', value, unit: 'kgCO2e' },
          year: Number(year),
          metadata: { source: 'DESNZ', region: 'UK' },
        },
      });
      expect(res.status).toBe(200);
    }

    const exported = await exportCsv(datasetId);
    expect(exported.status).toBe(200);
    expect(exported.body).toEqual({
      csvContent: [
        'label,key,value,unit,year,inputUnit,description,link,tags,metadata.region,metadata.source',
        'UK grid electricity,grid-uk,0.207,kgCO2e,2023,,,,,UK,DESNZ',
        'UK grid electricity,grid-uk,0.193,kgCO2e,2024,,,,,UK,DESNZ',
        'UK grid electricity,grid-uk,0.177,kgCO2e,2025,,,,,UK,DESNZ',
        '',
      ].join('\n'),
      filename: 'grid-factors.csv',
      itemCount: 3,
      dataSource: null,
      version: null,
    });

    // Edit: correct 2025, add 2026 and a new key, drop the region of 2023.
    const edited = exported.body.csvContent
      .replace('0.177,kgCO2e,2025', '0.181,kgCO2e,2025')
      .replace('0.207,kgCO2e,2023,,,,,UK,', '0.207,kgCO2e,2023,,,,,,')
      .concat('UK grid electricity,grid-uk,0.165,kgCO2e,2026,,,,,UK,DESNZ\n')
      .concat('"Natural gas, gross CV",gas,0.18296,kgCO2e,2025,,,,,,DESNZ\n');
    const imported = await importCsv(datasetId, edited);
    expect(imported.status).toBe(200);
    expect(imported.body).toEqual({ created: 2, updated: 2, unchanged: 1, failed: 0, errors: [] });

    const after = await exportCsv(datasetId);
    expect(after.body.itemCount).toBe(5);
    const rows = parse(after.body.csvContent, { columns: true }) as Record<string, string>[];
    expect(rows).toEqual([
      row('Natural gas, gross CV', 'gas', '0.18296', '2025', '', 'DESNZ'),
      row('UK grid electricity', 'grid-uk', '0.207', '2023', '', 'DESNZ'),
      row('UK grid electricity', 'grid-uk', '0.193', '2024', 'UK', 'DESNZ'),
      row('UK grid electricity', 'grid-uk', '0.181', '2025', 'UK', 'DESNZ'),
      row('UK grid electricity', 'grid-uk', '0.165', '2026', 'UK', 'DESNZ'),
    ]);

    // Importing the same file again changes nothing.
    const again = await importCsv(datasetId, after.body.csvContent);
    expect(again.body).toEqual({ created: 0, updated: 0, unchanged: 5, failed: 0, errors: [] });

    // The change is in the item's history, marked as coming from the import.
    const items = await api(t, 'GET', '/dataset-items', { token: owner() });
    const item2025 = items.body.find(
      (i: { datasetId: string; year: number; name: string }) =>
        i.datasetId === datasetId && i.year === 2025 && i.name === 'UK grid electricity',
    );
    const history = await api(t, 'GET', `/dataset-items/${item2025.id}/history`, { token: owner() });
    expect(history.body.map((h: { action: string; source: string }) => `${h.action}:${h.source}`)).toEqual([
      'create:api',
      'update:import',
    ]);
    expect(history.body[1].before.data.value).toBe(0.177);
    const current = await api(t, 'GET', `/dataset-items/${item2025.id}`, { token: owner() });
    expect(current.body.data.value).toBe(0.181);
    expect(history.body[1].after).toEqual(current.body);
  });
});

function row(label: string, key: string, value: string, year: string, region: string, source: string) {
  const none = { inputUnit: '', description: '', link: '', tags: '' };
  return {
    label,
    key,
    value,
    unit: 'kgCO2e',
    year,
    ...none,
    'metadata.region': region,
    'metadata.source': source,
  };
}

describe('POST /datasets/{id}/import', () => {
  it('gives rows without a year column the current calendar year', async () => {
    const id = await newDataset();
    const res = await importCsv(id, 'label,key,value\nDiesel,diesel,2.51\n');
    expect(res.body).toMatchObject({ created: 1, failed: 0 });
    const csv = (await exportCsv(id)).body.csvContent;
    expect(csv).toContain(`Diesel,diesel,2.51,,${new Date().getUTCFullYear()}`);
  });

  it('skips bad rows with `Row N:` errors and imports the rest', async () => {
    const id = await newDataset();
    const csv = [
      'label,key,value,unit,year',
      'Good,good,1,kgCO2e,2024',
      'No number,bad-value,abc,,2024',
      'Bad year,bad-year,1,,20x4',
      ',no-label,1,,2024',
      'Bad unit,bad-unit,1,furlong,2024',
      'Padded, padded,1,,2024',
      'Again,good,2,,2024',
      'Short,row',
      'Also good,other,-3.5e-7,,2024',
    ].join('\n');
    const res = await importCsv(id, csv);
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(2);
    expect(res.body.failed).toBe(7);
    expect(res.body.errors).toHaveLength(7);
    expect(res.body.errors.map((e: string) => e.split(':')[0])).toEqual([
      'Row 2',
      'Row 3',
      'Row 4',
      'Row 5',
      'Row 6',
      'Row 7',
      'Row 8',
    ]);
    expect(res.body.errors[0]).toContain('"abc"');
    expect(res.body.errors[5]).toContain('row 1');
  });

  it('counts blank lines in row numbers, as the site import does, and skips them', async () => {
    const id = await newDataset();
    const res = await importCsv(id, 'label,key,value,year\n\nA,k_a,1,2025\n\nB,k_b,x,2025\n\n');
    expect(res.body).toMatchObject({ created: 1, failed: 1 });
    expect(res.body.errors).toEqual([expect.stringMatching(/^Row 4: /)]);
  });

  it('keeps the stored values of columns the file does not have', async () => {
    const id = await newDataset();
    await importCsv(
      id,
      'label,key,value,unit,year,metadata.source,inputUnit\nPower,power,0.2,kgCO2e,2024,IEA,kWh\n',
    );
    const res = await importCsv(id, 'label,key,value,year\nPower,power,0.25,2024\n');
    expect(res.body).toMatchObject({ updated: 1 });
    const items = await api(t, 'GET', '/dataset-items', { token: owner() });
    const item = items.body.find((i: { datasetId: string }) => i.datasetId === id);
    const full = await api(t, 'GET', `/dataset-items/${item.id}`, { token: owner() });
    expect(full.body).toMatchObject({
      data: { key: 'power', value: 0.25, unit: 'kgCO2e' },
      metadata: { source: 'IEA' },
      inputUnitId: expect.any(String),
    });
  });

  it('keeps typed metadata when the cell reads the same, and removes a field whose cell is emptied', async () => {
    const id = await newDataset();
    const item = await api(t, 'POST', '/dataset-items', {
      token: owner(),
      body: {
        name: 'Typed',
        datasetId: id,
        data: { key: 'typed', value: 1 },
        year: 2024,
        metadata: { tier: 2, verified: true, note: 'x' },
      },
    });
    const csv = (await exportCsv(id)).body.csvContent;
    expect((await importCsv(id, csv)).body.unchanged).toBe(1);
    // tier and verified are not text: their columns hold JSON (metadataJson.tier, metadataJson.verified).
    expect(csv).toContain(
      'metadata.note,metadataJson.tier,metadataJson.verified\nTyped,typed,1,,2024,,,,,x,2,true\n',
    );
    await importCsv(id, csv.replace(',x,2,true', ',,2,true'));
    const after = await api(t, 'GET', `/dataset-items/${item.body.id}`, { token: owner() });
    expect(after.body.metadata).toEqual({ tier: 2, verified: true });
  });

  it('400 for a header without the required columns, with unknown or repeated columns, or malformed CSV', async () => {
    const id = await newDataset();
    for (const csv of [
      '',
      'label,key\nA,a\n',
      'label,key,value,colour\n',
      'label,key,value,key\n',
      'label,key,value\n"open,a,1\n',
    ]) {
      const res = await importCsv(id, csv);
      expect(res.status, csv).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.issues[0].path).toBe('csvContent');
    }
    expect((await api(t, 'POST', `/datasets/${id}/import`, { token: owner(), body: {} })).status).toBe(400);
    expect(
      (await api(t, 'POST', `/datasets/${id}/import`, { token: owner(), body: { csvContent: 1 } })).status,
    ).toBe(400);
  });

  it('refuses a body over the import limit (413) and changes nothing', async () => {
    const id = await newDataset();
    await importCsv(id, 'label,key,value,year\nA,a,1,2024\n');
    const before = (await exportCsv(id)).body.csvContent;
    const huge = `label,key,value,year\n${'B,b,1,2024\n'.repeat(1)}${'x'.repeat(t.config.largeBodyLimitBytes)}`;
    const res = await importCsv(id, huge);
    expect(res.status).toBe(413);
    expect((await exportCsv(id)).body.csvContent).toBe(before);
  });

  it('accepts bodies above the ordinary 1 MiB limit', async () => {
    const id = await newDataset();
    const note = 'n'.repeat(400);
    const lines = Array.from(
      { length: 3000 },
      (_, i) => `Label number ${i},key-${i},${i / 7},kgCO2e,2024,${note}`,
    );
    const csv = ['label,key,value,unit,year,metadata.note', ...lines].join('\n');
    expect(csv.length).toBeGreaterThan(t.config.bodyLimitBytes);
    const res = await importCsv(id, csv);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: 3000, failed: 0 });
    expect((await exportCsv(id)).body.itemCount).toBe(3000);
  });

  it('404 for unknown or another organization’s datasets; 403 for common ones, managers and below', async () => {
    const theirs = (await buildDataset(t, { tenant: other })).id;
    for (const id of [theirs, 'nope', '00000000-0000-4000-8000-000000000000']) {
      expect((await importCsv(id, 'label,key,value\n')).status).toBe(404);
    }
    const common = (
      await api(t, 'POST', '/datasets', { token: admin.token, body: { name: 'C', isCommon: true } })
    ).body.id;
    expect((await importCsv(common, 'label,key,value\nA,a,1\n')).status).toBe(403);
    expect((await importCsv(common, 'label,key,value\nA,a,1\n', admin.token)).status).toBe(200);
    const mine = await newDataset();
    for (const member of [tenant.manager, tenant.collector, tenant.viewer]) {
      expect((await importCsv(mine, 'label,key,value\n', member.token)).status).toBe(403);
    }
    expect((await api(t, 'POST', `/datasets/${mine}/import`, { body: { csvContent: '' } })).status).toBe(401);
  });
});

describe('GET /datasets/{datasetId}/export', () => {
  it('exports common datasets to every organization', async () => {
    const common = (
      await api(t, 'POST', '/datasets', { token: admin.token, body: { name: 'Shared Ω', isCommon: true } })
    ).body.id;
    await importCsv(common, 'label,key,value,year\nA,a,1,2024\n', admin.token);
    const res = await exportCsv(common, tenant.manager.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ filename: 'shared.csv', itemCount: 1 });
  });

  it('answers the CSV file itself to Accept: text/csv, and JSON otherwise', async () => {
    const id = await newDataset('Grid Ω');
    await importCsv(id, 'label,key,value,year\nA,a,1.5,2024\n');
    const json = await exportCsv(id);
    const res = await api(t, 'GET', `/datasets/${id}/export`, {
      token: tenant.owner.token,
      headers: { accept: 'text/csv, application/json;q=0.5' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="${json.body.filename}"; filename*=UTF-8''${encodeURIComponent(json.body.filename)}`,
    );
    expect(res.body).toBe(json.body.csvContent);
    const prefersJson = await api(t, 'GET', `/datasets/${id}/export`, {
      token: tenant.owner.token,
      headers: { accept: 'application/json, text/csv;q=0.9' },
    });
    expect(prefersJson.body).toEqual(json.body);
  });

  it('exports an empty dataset as a header', async () => {
    const res = await exportCsv(await newDataset('Empty'));
    expect(res.body).toEqual({
      csvContent: 'label,key,value,unit,year,inputUnit,description,link,tags\n',
      filename: 'empty.csv',
      itemCount: 0,
      dataSource: null,
      version: null,
    });
  });

  it('404 for unknown or another organization’s datasets, 403 for collectors and viewers', async () => {
    const theirs = (await buildDataset(t, { tenant: other })).id;
    for (const id of [theirs, 'nope']) expect((await exportCsv(id)).status).toBe(404);
    const mine = await newDataset();
    expect((await exportCsv(mine, tenant.collector.token)).status).toBe(403);
    expect((await exportCsv(mine, tenant.viewer.token)).status).toBe(403);
    expect((await api(t, 'GET', `/datasets/${mine}/export`)).status).toBe(401);
  });
});
