import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { createImportWorld, type ImportWorld } from '../../../test/helpers/import-world.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';
import { checkActivityInput } from '../activities/activities.inputs.ts';
import { PLAIN_HANDLERS } from '../values/values.plain.ts';

// Every call of the activity input check is counted (the module's own function, wrapped).
vi.mock('../activities/activities.inputs.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../activities/activities.inputs.ts')>();
  return { ...original, checkActivityInput: vi.fn(original.checkActivityInput) };
});

const t = useTestApp();
let w: ImportWorld;

beforeAll(async () => {
  w = await createImportWorld(t);
});
afterAll(() => shutdownSandbox());

describe('an import checks each row once', () => {
  it('runs the value check once per form-value row and the input check once per activity row', async () => {
    // The NUMBER handler object is the one app.ts puts in the pipeline's table.
    const numberCheck = vi.spyOn(PLAIN_HANDLERS.NUMBER, 'check');
    const inputCheck = vi.mocked(checkActivityInput);
    const electricity = [
      { Site: 'A', Year: 2025, Month: 1, Amount: 100, Unit: 'kWh' },
      { Site: 'A', Year: 2025, Month: 1, Amount: 0.5, Unit: 'MWh' }, // summed with the row above
      { Site: 'A', Year: 2025, Month: 2, Amount: 20, Unit: 'kWh' },
      { Site: 'B', Year: 2025, Month: 1, Amount: 30, Unit: null },
      { Site: 'B', Year: 2025, Month: 2, Amount: 40, Unit: 'kWh' },
    ];
    const fuel = [
      { Site: 'A', Date: '2025-01-15', Litres: 10 },
      { Site: 'A', Date: '2025-01-20', Litres: 4 },
      { Site: 'B', Date: '2025-02-01', Litres: 2 },
    ];
    numberCheck.mockClear();
    inputCheck.mockClear();
    const res = await w.run({
      mode: 'execute',
      sheets: [
        { name: 'Electricity', rows: electricity },
        { name: 'Fuel', rows: fuel },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.run.status).toBe('completed');
    expect(res.body.counts).toMatchObject({ total: 8, parsed: 8, reduced: 1, failed: 0, imported: 7 });
    expect(numberCheck).toHaveBeenCalledTimes(electricity.length);
    expect(inputCheck).toHaveBeenCalledTimes(fuel.length);

    // What was written is what was checked: the summed value in kWh, the activities' sum.
    const values = await t.database.tenant(w.tenant.organizationId, (tx) =>
      tx
        .selectFrom('form_element_submissions as v')
        .innerJoin('form_elements as e', 'e.id', 'v.element_id')
        .select(['e.key', 'v.site_id', 'v.period_unit', 'v.value', 'v.numeric_value'])
        .where('v.deleted_at', 'is', null)
        .execute(),
    );
    const find = (key: string, site: string, period: number) =>
      values.find((v) => v.key === key && v.site_id === site && v.period_unit === period);
    expect(find('elec', w.sites.A, 1)).toMatchObject({ value: 600, numeric_value: 600 });
    expect(find('fuel', w.sites.A, 1)).toMatchObject({ numeric_value: 35 });
    expect(find('fuel', w.sites.B, 2)).toMatchObject({ numeric_value: 5 });
    numberCheck.mockRestore();
  });
});
