import { api, type TestContext } from './app.ts';
import {
  activateForm,
  assignSites,
  createDataset,
  createDatasetItem,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from './factories.ts';

/**
 * The world of the indicator tests: a group with two plants (plant 1 has a line below it) and
 * an unrelated site, a monthly form with electricity (kWh, SUM), headcount (LAST), floor area
 * (AVERAGE) and gas (MWh), a grid factor (0.5 kgCO2e per kWh, by key) and a gas factor
 * (0.2 per kWh, by id). The collector is assigned to plant 1. Values of 2025:
 *
 * | site    | electricity (month: kWh)          | headcount   | area          | gas      |
 * |---------|-----------------------------------|-------------|---------------|----------|
 * | plant 1 | 1: 100 (APPROVED), 2: 200, 3: 300, 4: 400 | 1: 10, 3: 12 | 1: 100, 2: 200 | 1: 2 MWh |
 * | plant 2 | 1: 1000 (APPROVED)                | 2: 5        |               |          |
 * | line 1  | 2: 50                             |             |               |          |
 * | other   | 1: 7                              |             |               |          |
 *
 * and, in 2024, plant 1 electricity month 1: 9999.
 */
export interface IndicatorWorld {
  tenant: Tenant;
  sites: { group: string; plant1: string; plant2: string; line1: string; other: string };
  formId: string;
  element: Record<'elec' | 'head' | 'area' | 'gas', string>;
  units: Record<string, string>;
  datasetId: string;
  gridKey: { type: 'datasetItem'; value: string; metadata: { datasetId: string } };
  gasFactorId: string;
  /** POST /indicators as the manager; answers the response. */
  create: (body: Record<string, unknown>) => Promise<{ status: number; body: any }>;
  /** POST /indicators/current-values as the owner by default. */
  values: (body: Record<string, unknown>, token?: string) => Promise<{ status: number; body: any }>;
}

export const el = (value: string) => ({ type: 'formElement', value });
export const op = (value: string) => ({ type: 'operator', value });
export const num = (value: string) => ({ type: 'number', value });
export const paren = (value: string) => ({ type: 'parenthesis', value });
export const ind = (value: string) => ({ type: 'indicator', value });

export async function createIndicatorWorld(t: TestContext): Promise<IndicatorWorld> {
  const tenant = await createTenant(t);
  const org = tenant.organizationId;
  const rows = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  const units: Record<string, string> = Object.fromEntries(rows.map((r) => [r.symbol, r.id]));
  const group = await createSite(t, org, { name: 'Group' });
  const plant1 = await createSite(t, org, { name: 'Plant 1', parentId: group });
  const plant2 = await createSite(t, org, { name: 'Plant 2', parentId: group });
  const line1 = await createSite(t, org, { name: 'Line 1', parentId: plant1 });
  const other = await createSite(t, org, { name: 'Other' });
  await assignSites(t, org, tenant.collector.userId, [plant1]);
  // Indicators are organization-wide: the manager who writes them manages every site (decision 166).
  await assignSites(t, org, tenant.manager.userId, [group, other]);
  const form = await createForm(t, tenant, {
    periodType: 'MONTHLY',
    elements: [
      { key: 'elec', label: 'Electricity', type: 'NUMBER', unitId: units['kWh'] },
      { key: 'head', label: 'Headcount', type: 'NUMBER', aggregation: 'LAST' },
      { key: 'area', label: 'Floor area', type: 'NUMBER', aggregation: 'AVERAGE' },
      { key: 'gas', label: 'Gas', type: 'NUMBER', unitId: units['MWh'] },
    ],
  });
  const element = Object.fromEntries(form.elements.map((e) => [e.key, e.id])) as IndicatorWorld['element'];
  await activateForm(t, tenant, form.id, [group, plant1, plant2, line1, other], [2024, 2025]);

  const submit = async (siteId: string, year: number, values: [string, number, number][]) => {
    const res = await api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId,
        year,
        values: values.map(([elementKey, periodUnit, value]) => ({ elementKey, periodUnit, value })),
      },
    });
    if (res.status !== 200) throw new Error(`not submitted: ${JSON.stringify(res.body)}`);
    return res.body.values as { formElementSubmissionId: string; elementKey: string; periodUnit: number }[];
  };
  const approve = async (valueId: string) => {
    const res = await api(t, 'POST', `/form-submissions/values/${valueId}/review`, {
      token: tenant.owner.token,
      body: { status: 'APPROVED' },
    });
    if (res.status !== 200) throw new Error(`not reviewed: ${JSON.stringify(res.body)}`);
  };
  const p1 = await submit(plant1, 2025, [
    ['elec', 1, 100],
    ['elec', 2, 200],
    ['elec', 3, 300],
    ['elec', 4, 400],
    ['head', 1, 10],
    ['head', 3, 12],
    ['area', 1, 100],
    ['area', 2, 200],
    ['gas', 1, 2],
  ]);
  const p2 = await submit(plant2, 2025, [
    ['elec', 1, 1000],
    ['head', 2, 5],
  ]);
  await submit(line1, 2025, [['elec', 2, 50]]);
  await submit(other, 2025, [['elec', 1, 7]]);
  await submit(plant1, 2024, [['elec', 1, 9999]]);
  await approve(p1[0]!.formElementSubmissionId);
  await approve(p2[0]!.formElementSubmissionId);

  const datasetId = await createDataset(t, org, { name: 'Grid factors' });
  await createDatasetItem(t, org, datasetId, {
    key: 'grid',
    name: 'Grid electricity',
    value: 0.5,
    year: 2025,
    unit: 'kgCO2e',
    inputUnitId: units['kWh'],
  });
  await createDatasetItem(t, org, datasetId, {
    key: 'grid',
    name: 'Grid electricity',
    value: 0.9,
    year: 2019,
    unit: 'kgCO2e',
    inputUnitId: units['kWh'],
  });
  const gasFactorId = await createDatasetItem(t, org, datasetId, {
    key: 'gas',
    name: 'Natural gas',
    value: 0.2,
    year: 2025,
    unit: 'kgCO2e',
    inputUnitId: units['kWh'],
  });

  return {
    tenant,
    sites: { group, plant1, plant2, line1, other },
    formId: form.id,
    element,
    units,
    datasetId,
    gridKey: { type: 'datasetItem', value: 'grid', metadata: { datasetId } },
    gasFactorId,
    create: (body) => api(t, 'POST', '/indicators', { token: tenant.manager.token, body }),
    values: (body, token = tenant.owner.token) =>
      api(t, 'POST', '/indicators/current-values', { token, body }),
  };
}
