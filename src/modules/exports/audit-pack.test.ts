import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createExportWorld, type ExportWorld } from '../../../test/helpers/export-world.ts';
import { API_PREFIX } from '../../app.ts';

const t = useTestApp();
let w: ExportWorld;
const EVIDENCE = Buffer.from('%PDF-1.4 meter photo of January\n');

/** Every entry of a zip, by path. */
function unzip(buffer: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const files = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(files));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

beforeAll(async () => {
  w = await createExportWorld(t);
  // The evidence file's bytes, where local storage keeps them.
  const key = `org/${w.tenant.organizationId}/${w.mediaId}/evidence.pdf`;
  const path = join(t.config.dataDir, 'media', key);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, EVIDENCE);
  // An indicator over the electricity: 1500 (COMPLETED) + 200 (APPROVED) + 42 (imported,
  // COMPLETED) = 1742 kWh; the REJECTED 300 is left out by the default statuses.
  const kWh = await t.database.system((tx) =>
    tx
      .selectFrom('units')
      .select('id')
      .where('symbol', '=', 'kWh')
      .where('organization_id', 'is', null)
      .executeTakeFirstOrThrow(),
  );
  const created = await api(t, 'POST', '/indicators', {
    token: w.tenant.manager.token,
    body: {
      name: 'Electricity',
      unitId: kWh.id,
      expressionParts: [{ type: 'formElement', value: w.elementId('elec') }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
}, 60_000);

describe('GET /exports/audit-pack', () => {
  it('holds the tables, coefficients, indicators, locks and evidence, with a manifest that matches', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${API_PREFIX}/exports/audit-pack?year=2025`,
      headers: { authorization: `Bearer ${w.tenant.manager.token}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toContain('audit-pack-2025.zip');
    const files = await unzip(res.rawPayload);
    const evidencePath = `evidence/${w.mediaId}/evidence.pdf`;
    expect([...files.keys()]).toEqual([
      'values.csv',
      'activities.csv',
      'history.csv',
      'datasets.csv',
      'indicators.csv',
      'locks.csv',
      evidencePath,
      'manifest.json',
      'SHA256SUMS',
    ]);

    const manifest = JSON.parse(files.get('manifest.json')!.toString());
    expect(manifest).toMatchObject({ format: 'sdcs-audit-pack/1', year: 2025, missingEvidence: [] });
    expect(manifest.files.map((f: { path: string }) => f.path)).toEqual([...files.keys()].slice(0, -2));
    for (const f of manifest.files as { path: string; bytes: number; sha256: string }[]) {
      expect(f.sha256, f.path).toBe(sha256(files.get(f.path)!));
      expect(f.bytes, f.path).toBe(files.get(f.path)!.length);
    }
    expect(files.get('SHA256SUMS')!.toString()).toBe(
      manifest.files.map((f: { path: string; sha256: string }) => `${f.sha256}  ${f.path}\n`).join(''),
    );
    expect(files.get(evidencePath)).toEqual(EVIDENCE);

    // The tables are those of the exports.
    for (const name of ['values', 'activities', 'history']) {
      const alone = await api(t, 'GET', `/exports/${name}?year=2025`, { token: w.tenant.manager.token });
      expect(files.get(`${name}.csv`)!.toString(), name).toBe(alone.body);
    }

    const table = (name: string) => {
      const [header, ...rows] = parse(files.get(name)!) as string[][];
      return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]])));
    };
    expect(table('datasets.csv')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ datasetId: w.datasetId, key: 'diesel-ef', value: '2.5', year: '2025' }),
        expect.objectContaining({ datasetId: w.datasetId, key: 'diesel-wtt', value: '0.5', year: '2024' }),
      ]),
    );
    const [indicator] = table('indicators.csv');
    expect(indicator).toMatchObject({
      name: 'Electricity',
      year: '2025',
      value: '1742',
      unit: 'kWh',
      issues: '[]',
    });
    expect(JSON.parse(indicator!['expression']!)).toEqual([
      { type: 'formElement', value: w.elementId('elec') },
    ]);
    expect(table('locks.csv')).toEqual([
      expect.objectContaining({
        lockId: w.lockId,
        formId: w.form.id,
        formName: 'Energy',
        year: '2025',
        periodUnit: '1',
        siteId: w.sites.plant,
        siteName: 'Plant 1',
        lockedByName: 'Owner',
        unlockedAt: '',
      }),
    ]);
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
