import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../helpers/app.ts';
import { createDatasetWorld } from '../helpers/dataset-world.ts';
import type { Member, Tenant } from '../helpers/factories.ts';

/**
 * The built-in factor library is readable by every organization and changed by none, not even
 * by a platform admin: every write route answers 403 with the same plain message and leaves
 * the figures as they were; the database refuses the same writes on its own (row-level security).
 */
const t = useTestApp();
let tenant: Tenant;
let other: Tenant;
let admin: Member;
let datasetId: string;
let itemId: string;
const READ_ONLY =
  'The built-in factor library is read-only: copy the figures you need into a dataset of your own to change them';

beforeAll(async () => {
  ({ tenant, other, admin } = await createDatasetWorld(t));
  const datasets = await api(t, 'GET', '/datasets', { token: tenant.owner.token });
  datasetId = datasets.body.find(
    (d: { name: string; builtIn: boolean }) => d.builtIn && d.name === 'GWP-100, IPCC AR6',
  ).id;
  const items = await api(t, 'GET', '/dataset-items', { token: tenant.owner.token });
  itemId = items.body.find(
    (i: { datasetId: string; data: { key: string } }) =>
      i.datasetId === datasetId && i.data.key === 'gwp_R-410A',
  ).id;
});

const writes = () => [
  { method: 'PUT' as const, url: `/datasets/${datasetId}`, body: { name: 'mine now' } },
  { method: 'PUT' as const, url: `/datasets/${datasetId}`, body: { isCommon: false } },
  { method: 'DELETE' as const, url: `/datasets/${datasetId}` },
  {
    method: 'POST' as const,
    url: `/datasets/${datasetId}/import`,
    body: { csvContent: 'label,key,value,unit,year,inputUnit\nR-410A,gwp_R-410A,1,kgCO2e,2021,kg\n' },
  },
  {
    method: 'POST' as const,
    url: '/dataset-items',
    body: { name: 'extra', datasetId, data: { key: 'gwp_extra', value: 1 }, year: 2021 },
  },
  {
    method: 'PUT' as const,
    url: `/dataset-items/${itemId}`,
    body: { data: { key: 'gwp_R-410A', value: 1 } },
  },
  { method: 'DELETE' as const, url: `/dataset-items/${itemId}` },
];

describe('the built-in factor library', () => {
  it('is refused to every write, by an owner and by a platform admin, and nothing changes', async () => {
    for (const who of [tenant.owner, other.owner, admin])
      for (const { method, url, body } of writes()) {
        const res = await api(t, method, url, { token: who.token, ...(body ? { body } : {}) });
        expect(res.status, `${method} ${url}`).toBe(403);
        expect(res.body).toEqual({
          code: 'FORBIDDEN',
          message: 'Insufficient access',
          issues: [{ message: READ_ONLY }],
        });
      }
    const dataset = await api(t, 'GET', `/datasets/${datasetId}`, { token: tenant.manager.token });
    expect(dataset.body).toMatchObject({
      name: 'GWP-100, IPCC AR6',
      isCommon: true,
      readOnly: true,
      itemCount: 18,
    });
    const item = await api(t, 'GET', `/dataset-items/${itemId}`, { token: other.manager.token });
    expect(item.body.data).toEqual({ key: 'gwp_R-410A', value: 2255.5, unit: 'kgCO2e' });
    const history = await api(t, 'GET', `/dataset-items/${itemId}/history`, { token: tenant.owner.token });
    expect(history.body).toEqual([]);
  });

  it('is read by every organization, also for export', async () => {
    for (const who of [tenant.manager, other.manager]) {
      const res = await api(t, 'GET', `/datasets/${datasetId}/export`, { token: who.token });
      expect(res.status).toBe(200);
      expect(res.body.itemCount).toBe(18);
      expect(res.body.csvContent).toContain('gwp_R-410A,2255.5,kgCO2e,2021,kg');
    }
  });

  it('cannot be changed from an organization’s database session either (row-level security)', async () => {
    const counts = await t.database.tenant(tenant.organizationId, async (tx) => {
      const updated = await sql`update dataset_items set value = 0 where dataset_id = ${datasetId}`.execute(
        tx,
      );
      const deleted = await sql`delete from datasets where id = ${datasetId}`.execute(tx);
      const renamed = await sql`update datasets set name = 'x' where id = ${datasetId}`.execute(tx);
      return [updated.numAffectedRows, deleted.numAffectedRows, renamed.numAffectedRows].map(Number);
    });
    expect(counts).toEqual([0, 0, 0]);
    await expect(
      t.database.tenant(tenant.organizationId, (tx) =>
        sql`insert into dataset_items (organization_id, dataset_id, name, key, value, year)
            values (null, ${datasetId}, 'x', 'x', 1, 2021)`.execute(tx),
      ),
    ).rejects.toThrow(/row-level security/);
    const value = await t.database.system((tx) =>
      tx.selectFrom('dataset_items').select('value').where('id', '=', itemId).executeTakeFirstOrThrow(),
    );
    expect(value.value).toBe(2255.5);
  });
});
