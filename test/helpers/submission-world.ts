import { type ApiResponse, api, type TestContext } from './app.ts';
import { activateForm, assignSites, createForm, createSite, createTenant, type Tenant } from './factories.ts';

/**
 * The world of the submission tests: a quarterly form with one element of each plain type,
 * active on one site for 2025, whose collector and viewer are assigned to that site.
 */
export interface SubmissionWorld {
  tenant: Tenant;
  site: string;
  form: Awaited<ReturnType<typeof createForm>>;
  /** Catalog unit ids by symbol. */
  units: Record<string, string>;
  elementId: (key: string) => string;
  /** POST /form-submissions for the world's form, site and 2025 (as the collector by default). */
  submit: (body: Record<string, unknown>, token?: string) => Promise<ApiResponse>;
}

export async function createSubmissionWorld(t: TestContext): Promise<SubmissionWorld> {
  const tenant = await createTenant(t);
  const rows = await t.database.system((tx) =>
    tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
  );
  const units: Record<string, string> = Object.fromEntries(rows.map((r) => [r.symbol, r.id]));
  const site = await createSite(t, tenant.organizationId, { metadata: { erp: 'S-1' } });
  await assignSites(t, tenant.organizationId, tenant.collector.userId, [site]);
  await assignSites(t, tenant.organizationId, tenant.viewer.userId, [site]);
  const form = await createForm(t, tenant, {
    periodType: 'QUARTERLY',
    metadata: { code: 'Q-FORM' },
    elements: [
      { key: 'energy', label: 'Energy', type: 'NUMBER', unitId: units['kWh'], metadata: { ext: 'E' } },
      { key: 'plain', label: 'Plain number', type: 'NUMBER' },
      { key: 'note', label: 'Note', type: 'TEXT' },
      { key: 'flag', label: 'Flag', type: 'BOOLEAN' },
      {
        key: 'kind',
        label: 'Kind',
        type: 'SELECT',
        options: [
          { label: 'A', value: 'a' },
          { label: 'B', value: 'b' },
        ],
      },
      { key: 'day', label: 'Day', type: 'DATE' },
      { key: 'event', label: 'Event', type: 'TIMESTAMP' },
      { key: 'doc', label: 'Document', type: 'FILE' },
      { key: 'dup1', label: 'Dup 1', type: 'TEXT', metadata: { group: 'g' } },
      { key: 'dup2', label: 'Dup 2', type: 'TEXT', metadata: { group: 'g' } },
    ],
  });
  await activateForm(t, tenant, form.id, [site], [2025]);
  return {
    tenant,
    site,
    form,
    units,
    elementId: (key) => form.elements.find((e) => e.key === key)!.id,
    submit: (body, token = tenant.collector.token) =>
      api(t, 'POST', '/form-submissions', {
        token,
        body: { formId: form.id, siteId: site, year: 2025, ...body },
      }),
  };
}
