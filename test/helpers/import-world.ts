import { randomBytes } from 'node:crypto';
import { type ApiResponse, api, type TestContext } from './app.ts';
import {
  activateForm,
  assignSites,
  createActivityDefinition,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from './factories.ts';

/**
 * The world of the source-import tests: a MONTHLY energy form (`elec` in kWh, `note`, and the
 * ACTIVITY element `fuel`: litres x 2.5, failing for negative litres) active in 2025 on the
 * sites with codes A and B but not C; the collector is assigned to A and C only. The adapter maps
 * an "Electricity" sheet (site by code, Month column, kWh or MWh, sum) and a "Fuel" sheet
 * (activities, Date column).
 */
export interface ImportWorld {
  tenant: Tenant;
  sites: { A: string; B: string; C: string };
  form: Awaited<ReturnType<typeof createForm>>;
  adapter: { id: string; adapterVersion: string };
  mapping: unknown;
  /** POST /source-imports with the world's adapter (as the owner by default). */
  run: (body: Record<string, unknown>, options?: { key?: string; token?: string }) => Promise<ApiResponse>;
}

export const newKey = () => `key-${randomBytes(6).toString('hex')}`;

export async function createImportWorld(t: TestContext): Promise<ImportWorld> {
  const tenant = await createTenant(t);
  const org = tenant.organizationId;
  const units = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  const kWh = units.find((u) => u.symbol === 'kWh')!.id;
  const sites = {
    A: await createSite(t, org, { name: 'Site A', code: 'A', metadata: { erp: 'E-A' } }),
    B: await createSite(t, org, { name: 'Site B', code: 'B' }),
    C: await createSite(t, org, { name: 'Site C', code: 'C' }),
  };
  await assignSites(t, org, tenant.collector.userId, [sites.A, sites.C]);
  const definition = await createActivityDefinition(t, org, {
    key: `fuel-${randomBytes(3).toString('hex')}`,
    inputs: [{ name: 'litres', type: 'number', required: true }],
    calcCode: 'if (inputs.litres < 0) throw new Error("negative litres"); return inputs.litres * 2.5',
  });
  const form = await createForm(t, tenant, {
    name: 'Energy',
    periodType: 'MONTHLY',
    metadata: { source: 'energy' },
    elements: [
      { key: 'elec', label: 'Electricity', type: 'NUMBER', unitId: kWh },
      { key: 'note', label: 'Note', type: 'TEXT' },
      { key: 'fuel', label: 'Fuel', type: 'ACTIVITY', activityDefinitionId: definition },
    ],
  });
  await activateForm(t, tenant, form.id, [sites.A, sites.B], [2025]);
  const mapping = {
    sheets: [
      {
        sheet: 'Electricity',
        draft: 'form_value',
        form: { id: form.id },
        site: { column: 'Site', match: 'code' },
        year: { column: 'Year' },
        period: { column: 'Month' },
        element: { key: 'elec' },
        value: { column: 'Amount' },
        unit: { column: 'Unit' },
        reduce: 'sum',
      },
      {
        sheet: 'Fuel',
        draft: 'activity',
        form: { metadataKey: 'source', metadataValue: 'energy' },
        site: { column: 'Site', match: 'code' },
        period: { dateColumn: 'Date' },
        activity: { key: 'fuel' },
        inputs: { litres: { column: 'Litres' } },
      },
    ],
  };
  // A definition reads every site's files: the owner writes it (decision 166).
  const created = await api(t, 'POST', '/source-adapter-definitions', {
    token: tenant.owner.token,
    body: { name: 'Utilities', mapping },
  });
  if (created.status !== 200) throw new Error(`adapter not created: ${JSON.stringify(created.body)}`);
  const adapter = { id: created.body.id, adapterVersion: created.body.adapterVersion };
  return {
    tenant,
    sites,
    form,
    adapter,
    mapping,
    run: (body, options = {}) =>
      api(t, 'POST', '/source-imports', {
        token: options.token ?? tenant.owner.token,
        headers: { 'idempotency-key': options.key ?? newKey() },
        body: { sourceAdapterDefinitionId: adapter.id, adapterVersion: adapter.adapterVersion, ...body },
      }),
  };
}

/** A workbook with good rows, bad rows and an empty one (row indexes commented). */
export function sampleSheets() {
  return [
    {
      name: 'Electricity',
      rows: [
        { Site: 'A', Year: 2025, Month: 1, Amount: 100, Unit: 'kWh' }, // 0 ok
        { Site: 'A', Year: '2025', Month: '1', Amount: '0.5', Unit: 'MWh' }, // 1 ok, summed into 0
        { Site: 'B', Year: 2025, Month: 2, Amount: 10, Unit: null }, // 2 ok
        { Site: 'A', Year: 2025, Month: 13, Amount: 1, Unit: 'kWh' }, // 3 bad month
        { Site: 'A', Year: 2025, Month: 3, Amount: '1 234,5', Unit: 'kWh' }, // 4 bad number
        { Site: 'Z', Year: 2025, Month: 3, Amount: 1, Unit: 'kWh' }, // 5 unknown site
        { Site: 'A', Year: 2025, Month: 3, Amount: 1, Unit: 'parsec' }, // 6 unknown unit
        { Site: null, Year: null, Month: '', Amount: null, Unit: '  ' }, // 7 skipped
        { Site: 'C', Year: 2025, Month: 4, Amount: 7, Unit: 'kWh' }, // 8 ok, form-site missing
        { Site: 'A', Year: 2025, Month: 5, Amount: 1, Unit: 'kg' }, // 9 unit of another dimension
      ],
    },
    {
      name: 'Fuel',
      rows: [
        { Site: 'A', Date: '2025-01-15', Litres: 10 }, // 0 ok
        { Site: 'A', Date: '2025-01-20', Litres: '4' }, // 1 ok, same period: one set
        { Site: 'A', Date: '2025-02-01', Litres: -1 }, // 2 calculation fails
        { Site: 'A', Date: 'yesterday', Litres: 1 }, // 3 bad date
        { Site: 'A', Date: '2025-03-01', Litres: null }, // 4 required input missing
      ],
    },
  ];
}
