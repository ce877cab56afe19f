import { randomBytes } from 'node:crypto';
import { api, type TestContext } from './app.ts';
import {
  activateForm,
  assignSites,
  createActivityDefinition,
  createDataset,
  createDatasetItem,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from './factories.ts';
import { createUploadedMedia } from './media.ts';

/**
 * The world of the export tests, made by hand so that every column has a known answer:
 * sites Group (G) > UK > Plant 1 (P1), and Other (O) at the top; a MONTHLY "Energy" form
 * (`elec` NUMBER in kWh, `note` TEXT, `doc` FILE, `fuel` ACTIVITY) active in 2025 on Plant 1
 * and Other. The viewer and collector are assigned to UK (so they see UK and Plant 1), the
 * manager to Group and Other.
 *
 * Plant 1, 2025: January `elec` entered as 1.5 MWh (stored 1500 kWh), February 200 (approved),
 * March 300 (rejected, "meter photo missing"), January `note` "=1+2" (a formula), January `doc`
 * (evidence.pdf), January `fuel` one activity (litres 100, kind "diesel") computed with two
 * coefficients: 100 x 2.5 (diesel-ef) + 100 x 0.5 (diesel-wtt) = 300. January is locked for
 * Plant 1. Other, April `elec` 42 written by a source import (sheet Electricity, row 0).
 */
export interface ExportWorld {
  tenant: Tenant;
  sites: { group: string; uk: string; plant: string; other: string };
  form: Awaited<ReturnType<typeof createForm>>;
  elementId: (key: string) => string;
  valueIds: {
    mwh: string;
    approved: string;
    rejected: string;
    note: string;
    doc: string;
    fuel: string;
    imported: string;
  };
  mediaId: string;
  runId: string;
  lockId: string;
  activityId: string;
  definitionKey: string;
  calcCode: string;
  datasetId: string;
  /** The dataset items diesel-ef (2025) and diesel-wtt (2024). */
  itemIds: { ef: string; wtt: string };
}

export async function createExportWorld(t: TestContext): Promise<ExportWorld> {
  const tenant = await createTenant(t);
  const org = tenant.organizationId;
  const units = Object.fromEntries(
    (
      await t.database.system((tx) =>
        tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
      )
    ).map((u) => [u.symbol, u.id]),
  );
  const group = await createSite(t, org, { name: 'Group', code: 'G' });
  const uk = await createSite(t, org, { name: 'UK', code: 'UK', parentId: group });
  const plant = await createSite(t, org, { name: 'Plant 1', code: 'P1', parentId: uk });
  const other = await createSite(t, org, { name: 'Other', code: 'O' });
  await assignSites(t, org, tenant.viewer.userId, [uk]);
  await assignSites(t, org, tenant.collector.userId, [uk]);
  await assignSites(t, org, tenant.manager.userId, [group, other]);

  const datasetId = await createDataset(t, org, { name: 'Fuel factors' });
  const ef = await createDatasetItem(t, org, datasetId, {
    key: 'diesel-ef',
    value: 2.5,
    year: 2025,
    unit: 'kgCO2e',
  });
  const wtt = await createDatasetItem(t, org, datasetId, {
    key: 'diesel-wtt',
    value: 0.5,
    year: 2024,
    unit: 'kgCO2e',
  });
  const definitionKey = `fuel-${randomBytes(3).toString('hex')}`;
  const calcCode =
    "const ef = await context.coefficient('diesel-ef'); const wtt = await context.coefficient('diesel-wtt');\nreturn { value: inputs.litres * ef.value + inputs.litres * wtt.value, metadata: { kind: inputs.kind } };";
  const definition = await createActivityDefinition(t, org, {
    key: definitionKey,
    inputs: [
      { name: 'litres', type: 'number', required: true },
      { name: 'kind', type: 'string' },
    ],
    calcCode,
    unitId: units['kgCO2e'],
  });
  const form = await createForm(t, tenant, {
    name: 'Energy',
    periodType: 'MONTHLY',
    metadata: { source: 'energy' },
    elements: [
      { key: 'elec', label: 'Electricity', type: 'NUMBER', unitId: units['kWh'] },
      { key: 'note', label: 'Note', type: 'TEXT' },
      { key: 'doc', label: 'Meter photo', type: 'FILE' },
      { key: 'fuel', label: 'Fuel', type: 'ACTIVITY', activityDefinitionId: definition },
    ],
  });
  const elementId = (key: string) => form.elements.find((e) => e.key === key)!.id;
  await activateForm(t, tenant, form.id, [plant, other], [2025]);
  const mediaId = await createUploadedMedia(t, org, tenant.collector.userId);

  const submitted = await api(t, 'POST', '/form-submissions', {
    token: tenant.collector.token,
    body: {
      formId: form.id,
      siteId: plant,
      year: 2025,
      values: [
        { elementId: elementId('elec'), periodUnit: 1, value: 1.5, selectedUnitId: units['MWh'] },
        { elementId: elementId('elec'), periodUnit: 2, value: 200 },
        { elementId: elementId('elec'), periodUnit: 3, value: 300 },
        { elementId: elementId('note'), periodUnit: 1, value: '=1+2' },
        { elementId: elementId('doc'), periodUnit: 1, value: mediaId },
        { elementId: elementId('fuel'), periodUnit: 1, value: [{ litres: 100, kind: 'diesel' }] },
      ],
    },
  });
  if (submitted.status !== 200) throw new Error(`not submitted: ${JSON.stringify(submitted.body)}`);
  const stored = submitted.body.values as {
    formElementSubmissionId: string;
    elementId: string;
    periodUnit: number;
  }[];
  const idOf = (key: string, period: number) =>
    stored.find((v) => v.elementId === elementId(key) && v.periodUnit === period)!.formElementSubmissionId;
  const review = async (id: string, body: unknown) => {
    const res = await api(t, 'POST', `/form-submissions/values/${id}/review`, {
      token: tenant.owner.token,
      body,
    });
    if (res.status !== 200) throw new Error(`not reviewed: ${JSON.stringify(res.body)}`);
  };
  await review(idOf('elec', 2), { status: 'APPROVED' });
  await review(idOf('elec', 3), { status: 'REJECTED', comment: 'meter photo missing' });

  const adapter = await api(t, 'POST', '/source-adapter-definitions', {
    token: tenant.manager.token,
    body: {
      name: 'Utilities',
      mapping: {
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
          },
        ],
      },
    },
  });
  if (adapter.status !== 200) throw new Error(`adapter not created: ${JSON.stringify(adapter.body)}`);
  const run = await api(t, 'POST', '/source-imports', {
    token: tenant.owner.token,
    headers: { 'idempotency-key': `k-${randomBytes(6).toString('hex')}` },
    body: {
      sourceAdapterDefinitionId: adapter.body.id,
      adapterVersion: adapter.body.adapterVersion,
      mode: 'execute',
      sheets: [{ name: 'Electricity', rows: [{ Site: 'O', Year: 2025, Month: 4, Amount: 42 }] }],
    },
  });
  if (run.status !== 200 || run.body.execution?.blocked)
    throw new Error(`not imported: ${JSON.stringify(run.body)}`);

  const lock = await api(t, 'POST', '/form-locks', {
    token: tenant.owner.token,
    body: { formId: form.id, year: 2025, periodUnit: 1, siteIds: [plant] },
  });
  if (lock.status !== 200) throw new Error(`not locked: ${JSON.stringify(lock.body)}`);

  const [imported, activity] = await t.database.tenant(org, async (tx) => [
    await tx
      .selectFrom('form_element_submissions')
      .select('id')
      .where('organization_id', '=', org)
      .where('site_id', '=', other)
      .executeTakeFirstOrThrow(),
    await tx
      .selectFrom('activities')
      .select('id')
      .where('organization_id', '=', org)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    tenant,
    sites: { group, uk, plant, other },
    form,
    elementId,
    valueIds: {
      mwh: idOf('elec', 1),
      approved: idOf('elec', 2),
      rejected: idOf('elec', 3),
      note: idOf('note', 1),
      doc: idOf('doc', 1),
      fuel: idOf('fuel', 1),
      imported: imported.id,
    },
    mediaId,
    runId: run.body.run.id,
    lockId: lock.body[0].id,
    activityId: activity.id,
    definitionKey,
    calcCode,
    datasetId,
    itemIds: { ef, wtt },
  };
}
