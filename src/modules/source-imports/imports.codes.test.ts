import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createImportWorld, type ImportWorld, sampleSheets } from '../../../test/helpers/import-world.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

// The row issues of an import carry a documented code and raw params (decision 239), in the
// answer and as stored with the run (GET /source-imports/{runId}), so the app can say each row's
// problem in the person's language; the English message stays as it was.

const t = useTestApp();
let w: ImportWorld;

beforeAll(async () => {
  w = await createImportWorld(t);
});
afterAll(() => shutdownSandbox());

describe('codes of an import’s row issues', () => {
  it('each row issue has its code and params, in the answer and in the stored run', async () => {
    const [electricity, fuel] = sampleSheets();
    const res = await w.run({
      mode: 'preview',
      sheets: [
        {
          name: 'Electricity',
          rows: [
            ...electricity!.rows,
            { Site: 'A', Year: 1850, Month: 1, Amount: 1, Unit: 'kWh' }, // 10 year out of range
            { Site: 'A', Year: 2025, Month: 1.5, Amount: 1, Unit: 'kWh' }, // 11 period not whole
            { Site: 'A', Year: 2025, Month: 2, Amount: null, Unit: 'kWh' }, // 12 value cell empty
          ],
        },
        fuel!,
        { name: 'Water', rows: [{ Site: 'A' }] },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const coded = res.body.issues.map((i: any) => ({
      at: `${i.sheet}.${i.rowIndex}`,
      code: i.code,
      params: i.params,
    }));
    expect(coded).toEqual([
      {
        at: 'Electricity.3',
        code: 'import.periodOutOfRange',
        params: { periodUnit: 13, max: 12, periodType: 'MONTHLY' },
      },
      {
        at: 'Electricity.4',
        code: 'import.notNumber',
        params: { what: 'value', cell: '"1 234,5"' },
      },
      { at: 'Electricity.5', code: 'import.siteNotFound', params: { match: 'code', text: 'Z' } },
      { at: 'Electricity.6', code: 'import.unitUnknown', params: { symbol: 'parsec' } },
      // The value's own check (decision 225): a unit of another dimension.
      { at: 'Electricity.9', code: 'value.unitMismatch', params: expect.objectContaining({ unit: 'kg' }) },
      {
        at: 'Electricity.10',
        code: 'import.yearOutOfRange',
        params: { year: 1850, firstYear: 1900, lastYear: 2200 },
      },
      { at: 'Electricity.11', code: 'import.notWhole', params: { what: 'period', cell: '1.5' } },
      { at: 'Electricity.12', code: 'import.cellEmpty', params: { cell: 'value' } },
      {
        at: 'Fuel.2',
        code: 'import.calculationFailed',
        params: { element: 'fuel', detail: expect.stringContaining('negative litres') },
      },
      { at: 'Fuel.3', code: 'import.notDate', params: { cell: '"yesterday"' } },
      expect.objectContaining({ at: 'Fuel.4' }),
      { at: 'Water.0', code: 'import.sheetUnmapped', params: { sheet: 'Water' } },
    ]);
    // The English sentence is unchanged beside its code.
    expect(res.body.issues[2]).toMatchObject({ column: 'Site', message: 'No site has code "Z"' });

    const stored = await api(t, 'GET', `/source-imports/${res.body.run.id}`, { token: w.tenant.owner.token });
    expect(stored.status).toBe(200);
    expect(stored.body.issues.items).toEqual(res.body.issues);
  });

  it('a collector’s row for a site not theirs, and a request refused as a whole, carry their codes', async () => {
    const res = await w.run(
      {
        mode: 'preview',
        sheets: [
          { name: 'Electricity', rows: [{ Site: 'B', Year: 2025, Month: 1, Amount: 1, Unit: 'kWh' }] },
        ],
      },
      { token: w.tenant.collector.token },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.issues).toEqual([
      expect.objectContaining({ code: 'site.outOfScope', params: { site: 'Site B' } }),
    ]);
    const unknownVersion = await w.run({
      mode: 'preview',
      adapterVersion: 'f'.repeat(64),
      sheets: [{ name: 'Electricity', rows: [{ Site: 'A' }] }],
    });
    expect(unknownVersion.status).toBe(400);
    expect(unknownVersion.body.issues).toEqual([
      expect.objectContaining({ path: 'adapterVersion', code: 'import.versionUnknown' }),
    ]);
  });
});
