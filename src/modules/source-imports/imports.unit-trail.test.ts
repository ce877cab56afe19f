import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createImportWorld, type ImportWorld } from '../../../test/helpers/import-world.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
let w: ImportWorld;
let MWh: string;

beforeAll(async () => {
  w = await createImportWorld(t);
  MWh = await t.database.system(
    async (tx) =>
      (
        await tx
          .selectFrom('units')
          .select('id')
          .where('symbol', '=', 'MWh')
          .where('organization_id', 'is', null)
          .executeTakeFirstOrThrow()
      ).id,
  );
});
afterAll(() => shutdownSandbox());

const row = (Month: number, Amount: number | string, Unit: string | null, Site = 'A') => ({
  Site,
  Year: 2025,
  Month,
  Amount,
  Unit,
});

describe('summed import rows keep their unit trail', () => {
  it('keeps the unit and the sum as entered when every row agrees, and drops it when they do not', async () => {
    const res = await w.run({
      mode: 'execute',
      sheets: [
        {
          name: 'Electricity',
          rows: [
            row(6, 0.5, 'MWh'),
            row(6, '0.25', 'MWh'), // summed: 0.75 MWh = 750 kWh
            row(7, 100, 'kWh'),
            row(7, 0.5, 'MWh'), // summed: 100 kWh + 500 kWh = 600 kWh, units disagree
            row(8, 40, null),
            row(8, 2, null), // summed: 42 kWh, entered in the element's unit
          ],
        },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.counts).toMatchObject({ imported: 3, reduced: 3, failed: 0 });
    const subs = await api(t, 'GET', `/form-submissions?formId=${w.form.id}&siteId=${w.sites.A}&year=2025`, {
      token: w.tenant.owner.token,
    });
    expect(subs.status).toBe(200);
    const values = subs.body.items[0].values as {
      elementKey: string;
      periodUnit: number;
      value: unknown;
      originalValue: unknown;
      selectedUnitId: string | null;
    }[];
    const at = (month: number) => values.find((v) => v.elementKey === 'elec' && v.periodUnit === month);
    expect(at(6)).toMatchObject({ value: 750, originalValue: 0.75, selectedUnitId: MWh });
    expect(at(7)).toMatchObject({ value: 600, originalValue: null, selectedUnitId: null });
    expect(at(8)).toMatchObject({ value: 42, originalValue: null, selectedUnitId: null });
  });
});

describe('numbers past 2^53 − 1 are refused, naming the field', () => {
  it('refuses such a cell in an import, naming its column', async () => {
    const res = await w.run({
      sheets: [
        {
          name: 'Electricity',
          rows: [row(9, '9007199254740993', 'kWh'), row(9, 9007199254740991, 'kWh', 'B')],
        },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.counts).toMatchObject({ failed: 1, ready: 1 });
    expect(res.body.issues).toEqual([
      expect.objectContaining({
        sheet: 'Electricity',
        rowIndex: 0,
        column: 'Amount',
        message: expect.stringContaining('2^53 − 1'),
      }),
    ]);
  });

  it('refuses such a submitted value, and one that converts past it', async () => {
    const submit = (value: number, selectedUnitId?: string) =>
      api(t, 'POST', '/form-submissions', {
        token: w.tenant.owner.token,
        body: {
          formId: w.form.id,
          siteId: w.sites.B,
          year: 2025,
          values: [
            { elementKey: 'elec', periodUnit: 10, value, ...(selectedUnitId ? { selectedUnitId } : {}) },
          ],
        },
      });
    // A body's 9007199254740993 is parsed as 2^53 (9007199254740992): past the limit either way.
    const large = await submit(2 ** 53);
    expect(large.status).toBe(400);
    expect(large.body.issues[0].path).toBe('values.0.value');
    expect(large.body.issues[0].message).toContain('2^53 − 1');
    const converted = await submit(9e13, MWh); // 9e16 kWh
    expect(converted.status).toBe(400);
    expect(converted.body.issues[0].path).toBe('values.0.value');
    const fine = await submit(9007199254740991);
    expect(fine.status, JSON.stringify(fine.body)).toBe(200);
  });
});
