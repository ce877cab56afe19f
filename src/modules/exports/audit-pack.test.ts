import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import pkg from '../../../package.json' with { type: 'json' };
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createExportWorld, type ExportWorld } from '../../../test/helpers/export-world.ts';
import { unzip } from '../../../test/helpers/zip.ts';
import { API_PREFIX } from '../../app.ts';

const t = useTestApp();
let w: ExportWorld;
let definitionId: string;
const EVIDENCE = Buffer.from('%PDF-1.4 meter photo of January\n');

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

async function pull(token: string, query = '') {
  const res = await t.app.inject({
    method: 'GET',
    url: `${API_PREFIX}/exports/audit-pack?year=2025${query}`,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  const files = await unzip(res.rawPayload);
  const manifest = JSON.parse(files.get('manifest.json')!.toString());
  const table = (name: string) => {
    const [header, ...rows] = parse(files.get(name)!, { bom: true }) as string[][];
    return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
  };
  return { res, files, manifest, table };
}

beforeAll(async () => {
  w = await createExportWorld(t);
  // The evidence file's bytes, where local storage keeps them.
  const key = `org/${w.tenant.organizationId}/${w.mediaId}/evidence.pdf`;
  const path = join(t.config.dataDir, 'media', key);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, EVIDENCE);
  await t.database.system(async (tx) => {
    await tx
      .updateTable('datasets')
      .set({ data_source: 'DESNZ conversion factors', version: '2025 v1.1', description: 'UK fuels' })
      .where('id', '=', w.datasetId)
      .execute();
    await tx
      .updateTable('dataset_items')
      .set({ description: 'Diesel, average biofuel blend', link: 'https://example.org/factors#diesel' })
      .where('id', '=', w.itemIds.ef)
      .execute();
    const row = await tx
      .selectFrom('activity_definitions')
      .select('id')
      .where('key', '=', w.definitionKey)
      .executeTakeFirstOrThrow();
    definitionId = row.id;
  });
  // Indicators over the electricity: 1500 (COMPLETED) + 200 (APPROVED) + 42 (imported,
  // COMPLETED) = 1742 kWh; the REJECTED 300 is left out by the default statuses. Twice: 3484.
  const kWh = await t.database.system((tx) =>
    tx
      .selectFrom('units')
      .select('id')
      .where('symbol', '=', 'kWh')
      .where('organization_id', 'is', null)
      .executeTakeFirstOrThrow(),
  );
  for (const [name, expressionParts] of [
    ['Electricity', [{ type: 'formElement', value: w.elementId('elec') }]],
    [
      'Electricity twice',
      [
        { type: 'parenthesis', value: '(' },
        { type: 'formElement', value: w.elementId('elec') },
        { type: 'parenthesis', value: ')' },
        { type: 'operator', value: '*' },
        { type: 'number', value: '2' },
      ],
    ],
  ] as const) {
    const created = await api(t, 'POST', '/indicators', {
      token: w.tenant.manager.token,
      body: { name, unitId: kWh.id, expressionParts },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  }
}, 60_000);

describe('GET /exports/audit-pack', () => {
  it('holds the tables, the methodology, the reference tables and evidence, each in the manifest', async () => {
    const { res, files, manifest, table } = await pull(w.tenant.manager.token);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toContain('audit-pack-2025.zip');
    const evidencePath = `evidence/${w.mediaId}/evidence.pdf`;
    const method = `methodology/${w.definitionKey}.js`;
    expect([...files.keys()]).toEqual([
      'values.csv',
      'activities.csv',
      'history.csv',
      'forms.csv',
      'activity-definitions.csv',
      method,
      'units.csv',
      'datasets.csv',
      'indicators.csv',
      'locks.csv',
      evidencePath,
      'README.txt',
      'SHA256SUMS',
      'manifest.json',
      'manifest.sig',
    ]);
    expect(manifest.files.map((f: { path: string }) => f.path)).toEqual([...files.keys()].slice(0, -2));
    for (const f of manifest.files as { path: string; bytes: number; sha256: string }[]) {
      expect(f.sha256, f.path).toBe(sha256(files.get(f.path)!));
      expect(f.bytes, f.path).toBe(files.get(f.path)!.length);
    }
    // Row counts: the data rows of each table, without its header.
    const rowsOf = (path: string) => manifest.files.find((f: { path: string }) => f.path === path).rows;
    for (const name of ['values.csv', 'activities.csv', 'history.csv', 'forms.csv', 'units.csv', 'locks.csv'])
      expect(rowsOf(name), name).toBe(table(name).length);
    expect(rowsOf('values.csv')).toBe(7);
    expect(rowsOf('activities.csv')).toBe(1);
    expect(rowsOf(method)).toBeNull();
    expect(rowsOf('SHA256SUMS')).toBe(manifest.files.length - 1);
    expect(files.get('SHA256SUMS')!.toString()).toBe(
      manifest.files
        .slice(0, -1)
        .map((f: { path: string; sha256: string }) => `${f.sha256}  ${f.path}\n`)
        .join(''),
    );
    expect(files.get(evidencePath)).toEqual(EVIDENCE);
    expect(manifest.missingEvidence).toEqual([]);
    expect(manifest.codeVersionsNotRetained).toEqual([]);

    // The values and activities are those of the exports.
    for (const name of ['values', 'activities']) {
      const alone = await api(t, 'GET', `/exports/${name}?year=2025`, { token: w.tenant.manager.token });
      expect(files.get(`${name}.csv`)!.toString(), name).toBe(alone.body);
    }
    const readme = files.get('README.txt')!.toString();
    for (const name of ['values.csv', 'forms.csv', 'methodology/<key>.js', 'manifest.sig', 'ISAE 3410'])
      expect(readme).toContain(name);
  });

  it('records who made it, when, with which software, filters and site scope', async () => {
    const org = await t.database.system((tx) =>
      tx
        .selectFrom('organizations')
        .select('name')
        .where('id', '=', w.tenant.organizationId)
        .executeTakeFirstOrThrow(),
    );
    const { manifest } = await pull(w.tenant.manager.token);
    expect(manifest).toMatchObject({
      format: 'sdcs-audit-pack/2',
      software: { name: 'sdcs', version: pkg.version },
      organization: { id: w.tenant.organizationId, name: org.name },
      generatedBy: { userId: w.tenant.manager.userId, email: w.tenant.manager.email, credential: 'token' },
      year: 2025,
      filters: { formId: null, siteIds: null },
      signature: { algorithm: 'Ed25519', file: 'manifest.sig' },
    });
    expect(Number.isNaN(Date.parse(manifest.createdAt))).toBe(false);
    // The manager is limited to Group (with UK and Plant 1) and Other: the scope says so.
    expect(manifest.siteScope.allSites).toBe(false);
    expect(manifest.siteScope.sites.map((s: { path: string }) => s.path)).toEqual([
      'Group',
      'Group / UK',
      'Group / UK / Plant 1',
      'Other',
    ]);
    const plant = await pull(w.tenant.manager.token, `&siteIds=${w.sites.plant}`);
    expect(plant.manifest.filters.siteIds).toEqual([w.sites.plant]);
    expect(plant.manifest.siteScope).toEqual({
      allSites: false,
      sites: [{ id: w.sites.plant, code: 'P1', name: 'Plant 1', path: 'Group / UK / Plant 1' }],
    });
    expect(plant.table('values.csv').every((v) => v['siteId'] === w.sites.plant)).toBe(true);
    const owner = await pull(w.tenant.owner.token, `&formId=${w.form.id}`);
    expect(owner.manifest.siteScope.allSites).toBe(true);
    expect(owner.manifest.siteScope.sites).toHaveLength(4);
    expect(owner.manifest.filters.formId).toBe(w.form.id);
    expect(owner.manifest.generatedBy.userId).toBe(w.tenant.owner.userId);
  });

  it('describes forms, units, datasets with provenance, readable indicators and history in units', async () => {
    const { table } = await pull(w.tenant.manager.token);
    const forms = table('forms.csv');
    expect(forms.map((f) => f['elementKey'])).toEqual(['elec', 'note', 'doc', 'fuel']);
    expect(forms[0]).toMatchObject({
      formName: 'Energy',
      periodType: 'MONTHLY',
      type: 'NUMBER',
      unit: 'kWh',
      aggregation: 'SUM',
      integerOnly: 'false',
    });
    expect(forms[3]).toMatchObject({ type: 'ACTIVITY', activityDefinitionKey: w.definitionKey });

    const units = new Map(table('units.csv').map((u) => [u['symbol'], u]));
    // 1 MWh = 1000 kWh: the ratio of their factors, whatever the base unit.
    expect(Number(units.get('MWh')!['factorToBase']) / Number(units.get('kWh')!['factorToBase'])).toBe(1000);
    expect(units.get('MWh')!['dimension']).toBe(units.get('kWh')!['dimension']);
    const base = units.get('kWh')!['baseUnit']!;
    expect(units.get(base)!['factorToBase']).toBe('1');

    expect(table('datasets.csv')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          datasetId: w.datasetId,
          datasetName: 'Fuel factors',
          dataSource: 'DESNZ conversion factors',
          version: '2025 v1.1',
          datasetDescription: 'UK fuels',
          key: 'diesel-ef',
          value: '2.5',
          year: '2025',
          description: 'Diesel, average biofuel blend',
          link: 'https://example.org/factors#diesel',
        }),
        expect.objectContaining({ datasetId: w.datasetId, key: 'diesel-wtt', value: '0.5', year: '2024' }),
      ]),
    );

    const indicators = table('indicators.csv');
    expect(indicators.map((i) => [i['name'], i['expression'], i['value'], i['unit']])).toEqual([
      ['Electricity', '{Energy / Electricity (elec), kWh}', '1742', 'kWh'],
      ['Electricity twice', '({Energy / Electricity (elec), kWh}) * 2', '3484', 'kWh'],
    ]);
    expect(indicators.some((i) => /[0-9a-f]{8}-[0-9a-f]{4}/.test(i['expression']!))).toBe(false);

    // The value entered as 1.5 MWh: its history names the unit, not its id.
    const created = table('history.csv').find(
      (h) => h['recordId'] === w.valueIds.mwh && h['action'] === 'CREATE',
    )!;
    expect(JSON.parse(created['after']!)).toMatchObject({
      value: 1500,
      originalValue: 1.5,
      selectedUnit: 'MWh',
    });
    expect(created['after']).not.toContain('selectedUnitId');
  });

  it('hands out the calcCode each activity was calculated with, current and older', async () => {
    const first = await pull(w.tenant.manager.token);
    const method = `methodology/${w.definitionKey}.js`;
    const [activity] = first.table('activities.csv');
    expect(activity!['calcCodeSha256']).toBe(sha256(first.files.get(method)!));
    expect(first.files.get(method)!.toString()).toBe(w.calcCode);
    expect(first.table('activity-definitions.csv')).toEqual([
      expect.objectContaining({
        definitionId,
        key: w.definitionKey,
        unit: 'kgCO2e',
        inputs: 'litres (number, required); kind (string)',
        calcCodeSha256: sha256(w.calcCode),
        methodologyFile: method,
        activitiesExported: '1',
        codeVersionsUsed: sha256(w.calcCode),
      }),
    ]);

    // The code changes; the activity is not recalculated: its code is kept by its hash.
    const changed = `${w.calcCode}\n// v2`;
    await t.database.system((tx) =>
      tx
        .updateTable('activity_definitions')
        .set({ calc_code: changed })
        .where('id', '=', definitionId)
        .execute(),
    );
    const second = await pull(w.tenant.manager.token);
    const old = `methodology/${w.definitionKey}.${sha256(w.calcCode).slice(0, 12)}.js`;
    expect(second.files.get(method)!.toString()).toBe(changed);
    expect(sha256(second.files.get(old)!)).toBe(second.table('activities.csv')[0]!['calcCodeSha256']);
    expect(second.table('activity-definitions.csv')[0]).toMatchObject({
      calcCodeSha256: sha256(changed),
      codeVersionsUsed: sha256(w.calcCode),
    });
    expect(second.manifest.codeVersionsNotRetained).toEqual([]);

    // A hash the service has no code for (changed before versions were kept) is named as such.
    const lost = 'ab'.repeat(32);
    await t.database.system((tx) =>
      tx.updateTable('activities').set({ calc_code_sha256: lost }).where('id', '=', w.activityId).execute(),
    );
    const third = await pull(w.tenant.manager.token);
    expect(third.manifest.codeVersionsNotRetained).toEqual([
      { definitionKey: w.definitionKey, calcCodeSha256: lost, activities: 1 },
    ]);
    expect([...third.files.keys()].filter((f) => f.startsWith('methodology/'))).toEqual([method]);
    expect(third.files.get('README.txt')!.toString()).toContain('code version not retained');
  });

  it('is for managers and owners', async () => {
    const res = await api(t, 'GET', '/exports/audit-pack?year=2025', { token: w.tenant.viewer.token });
    expect(res.status).toBe(403);
    const bad = await api(t, 'GET', '/exports/audit-pack?year=2025&siteIds=nope', {
      token: w.tenant.owner.token,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.issues[0].path).toBe('siteIds');
  });
});
