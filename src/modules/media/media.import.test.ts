import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/helpers/app.ts';
import { newKey } from '../../../test/helpers/import-world.ts';
import { useMediaApp } from '../../../test/helpers/media-world.ts';
import { createPlants, type Plants } from '../../../test/security/plants.ts';

/**
 * A source import writes FILE values through the same check as a submission: a collector limited
 * to Plant 1 cannot attach a Plant 2 file by importing a sheet that names it (issue 41, item 2).
 */
const t = useMediaApp();
let w: Plants;
let adapter: { id: string; adapterVersion: string };
let formId: string;

beforeAll(async () => {
  w = await createPlants(t);
  formId = await w.fileForm();
  const created = await api(t, 'POST', '/source-adapter-definitions', {
    token: w.tenant.owner.token,
    body: {
      name: 'Invoices',
      mapping: {
        sheets: [
          {
            sheet: 'Invoices',
            draft: 'form_value',
            form: { id: formId },
            site: { column: 'Site', match: 'name' },
            year: { column: 'Year' },
            period: { column: 'Period' },
            element: { key: 'doc' },
            value: { column: 'File' },
          },
        ],
      },
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  adapter = { id: created.body.id, adapterVersion: created.body.adapterVersion };
});

const importFile = (mediaId: string, token: string) =>
  api(t, 'POST', '/source-imports', {
    token,
    headers: { 'idempotency-key': newKey() },
    body: {
      sourceAdapterDefinitionId: adapter.id,
      adapterVersion: adapter.adapterVersion,
      mode: 'execute',
      sheets: [{ name: 'Invoices', rows: [{ Site: 'Plant 1', Year: 2025, Period: 1, File: mediaId }] }],
    },
  });

/** The media ids held by Plant 1's values of the form. */
const heldOnPlant1 = () =>
  t.database.tenant(w.tenant.organizationId, (tx) =>
    tx
      .selectFrom('form_element_submissions as v')
      .innerJoin('form_elements as e', 'e.id', 'v.element_id')
      .select('v.value')
      .where('e.form_id', '=', formId)
      .where('v.site_id', '=', w.plant1)
      .where('v.deleted_at', 'is', null)
      .execute(),
  );

describe('importing a FILE value', () => {
  it('refuses a Plant 2 file for the collector of Plant 1 and writes nothing; their own file is imported', async () => {
    const { mediaId } = await w.attachedFile(w.plant2);
    const refused = await importFile(mediaId, w.tenant.collector.token);
    // The run fails as for an id that does not exist: the same words, nothing imported.
    expect(refused.status).toBe(200);
    expect(refused.body.run.status).toBe('failed');
    expect(refused.body.counts.imported).toBe(0);
    expect(refused.body.execution.message).toBe(
      `Invalid values; media ${mediaId} does not exist in this organization`,
    );
    expect(await heldOnPlant1()).toEqual([]);

    const own = await w.unattachedFile(w.tenant.collector);
    const imported = await importFile(own, w.tenant.collector.token);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(await heldOnPlant1()).toEqual([{ value: own }]);
  });
});
