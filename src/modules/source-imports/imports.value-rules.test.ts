import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { newKey } from '../../../test/helpers/import-world.ts';
import { createRulesWorld, type RulesWorld } from '../../../test/helpers/rules-world.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
let w: RulesWorld;

beforeAll(async () => {
  w = await createRulesWorld(t);
});
afterAll(() => shutdownSandbox());

/** Previews `rows` through an adapter of one mapping entry, as the owner. */
async function preview(entry: Record<string, unknown>, rows: object[]) {
  const adapter = await api(t, 'POST', '/source-adapter-definitions', {
    token: w.tenant.owner.token,
    body: { name: `rules ${newKey()}`, mapping: { sheets: [{ sheet: '*', ...entry }] } },
  });
  expect(adapter.status, JSON.stringify(adapter.body)).toBe(200);
  const res = await api(t, 'POST', '/source-imports', {
    token: w.tenant.owner.token,
    headers: { 'idempotency-key': newKey() },
    body: {
      sourceAdapterDefinitionId: adapter.body.id,
      adapterVersion: adapter.body.adapterVersion,
      sheets: [{ name: 'Meters', rows }],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    counts: Record<string, number>;
    issues: { rowIndex: number; column?: string; message: string }[];
  };
}

describe('source imports: the element rules, row by row (issue 42)', () => {
  it('reports a value past its limit or a date outside its period with its row and column', async () => {
    const base = {
      form: { id: w.form.id },
      year: { column: 'y' },
      period: { column: 'm' },
      site: { column: 's', match: 'name' },
      draft: 'form_value',
    };
    const elec = await preview({ ...base, element: { key: 'elec' }, value: { column: 'v' } }, [
      { s: 'Plant 2', y: 2025, m: 1, v: 1000 },
      { s: 'Plant 2', y: 2025, m: 2, v: 1000.5 },
    ]);
    expect(elec.counts).toMatchObject({ parsed: 1, failed: 1 });
    expect(elec.issues).toEqual([
      expect.objectContaining({ rowIndex: 1, column: 'v', message: 'Electricity must be at most 1000 kWh' }),
    ]);
    const dates = await preview({ ...base, element: { key: 'invoice' }, value: { column: 'v' } }, [
      { s: 'Plant 2', y: 2025, m: 4, v: '2025-05-01' },
    ]);
    expect(dates.issues).toEqual([
      expect.objectContaining({
        rowIndex: 0,
        column: 'v',
        message: 'Invoice date must be within April 2025 (2025-04-01 to 2025-04-30); 2025-05-01 is not',
      }),
    ]);
  });

  it('reports an activity row whose date input is outside its period, naming the input’s column', async () => {
    const res = await preview(
      {
        draft: 'activity',
        form: { id: w.form.id },
        site: { column: 's', match: 'name' },
        year: { column: 'y' },
        period: { column: 'm' },
        activity: { key: 'fuel' },
        inputs: { amount: { column: 'a' }, day: { column: 'd' } },
      },
      [
        { s: 'Plant 2', y: 2025, m: 3, a: 1, d: '2025-03-31' },
        { s: 'Plant 2', y: 2025, m: 3, a: 1, d: '2025-07-04' },
      ],
    );
    expect(res.counts).toMatchObject({ parsed: 1, failed: 1 });
    expect(res.issues).toEqual([
      expect.objectContaining({
        rowIndex: 1,
        column: 'd',
        message: 'Refuels: day must be within March 2025 (2025-03-01 to 2025-03-31); 2025-07-04 is not',
      }),
    ]);
  });
});
