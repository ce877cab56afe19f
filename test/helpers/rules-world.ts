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
 * The world of the plausibility-rule tests (issue 42): a MONTHLY form on "Plant 2" for 2024 and
 * 2025 whose elements carry rules: Electricity (kWh, 0..1000, outliers past 3x), Headcount (whole
 * numbers), Invoice date (DATE), Refuel time (TIMESTAMP) and Refuels (ACTIVITY with a date input).
 */
export interface RulesWorld {
  tenant: Tenant;
  site: string;
  form: Awaited<ReturnType<typeof createForm>>;
  units: Record<string, string>;
  /** POST /form-submissions (or another path) for the world's form and site (as the collector). */
  submit: (body: Record<string, unknown>, path?: string, token?: string) => Promise<ApiResponse>;
}

export async function createRulesWorld(t: TestContext): Promise<RulesWorld> {
  const tenant = await createTenant(t);
  const rows = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  const units: Record<string, string> = Object.fromEntries(rows.map((r) => [r.symbol, r.id]));
  const site = await createSite(t, tenant.organizationId, { name: 'Plant 2' });
  await assignSites(t, tenant.organizationId, tenant.collector.userId, [site]);
  const definition = await createActivityDefinition(t, tenant.organizationId, {
    key: 'refuel',
    inputs: [
      { name: 'amount', type: 'number', required: true },
      { name: 'day', type: 'date' },
    ],
    calcCode: 'return inputs.amount * 2',
  });
  const form = await createForm(t, tenant, {
    name: 'Energy',
    periodType: 'MONTHLY',
    elements: [
      {
        key: 'elec',
        label: 'Electricity',
        type: 'NUMBER',
        unitId: units['kWh'],
        minValue: 0,
        maxValue: 1000,
        warnChangeFactor: 3,
      },
      { key: 'head', label: 'Headcount', type: 'NUMBER', integer: true },
      { key: 'invoice', label: 'Invoice date', type: 'DATE' },
      { key: 'event', label: 'Refuel time', type: 'TIMESTAMP' },
      { key: 'fuel', label: 'Refuels', type: 'ACTIVITY', activityDefinitionId: definition },
    ],
  });
  await activateForm(t, tenant, form.id, [site], [2024, 2025]);
  return {
    tenant,
    site,
    form,
    units,
    submit: (body, path = '/form-submissions', token = tenant.collector.token) =>
      api(t, 'POST', path, { token, body: { formId: form.id, siteId: site, year: 2025, ...body } }),
  };
}
