import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createImportWorld, type ImportWorld, newKey } from '../../../test/helpers/import-world.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

const t = useTestApp();
let w: ImportWorld;

beforeAll(async () => {
  w = await createImportWorld(t);
});
afterAll(() => shutdownSandbox());

const row = (month: number, amount: unknown = 1) => ({
  Site: 'A',
  Year: 2025,
  Month: month,
  Amount: amount,
  Unit: 'kWh',
});
const sheets = (rows: unknown[] = [row(1)]) => [{ name: 'Electricity', rows }];

const post = (body: unknown, headers: Record<string, string> = { 'idempotency-key': newKey() }) =>
  api(t, 'POST', '/source-imports', { token: w.tenant.owner.token, headers, body });
const full = (extra: Record<string, unknown> = {}) => ({
  sourceAdapterDefinitionId: w.adapter.id,
  adapterVersion: w.adapter.adapterVersion,
  sheets: sheets(),
  ...extra,
});

const expect400 = async (res: Awaited<ReturnType<typeof post>>, fragment: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.code).toBe('BAD_REQUEST');
  expect(JSON.stringify(res.body.issues)).toContain(fragment);
};

describe('POST /source-imports: request rules and limits', () => {
  it('needs an Idempotency-Key of 1-200 printable ASCII characters without spaces', async () => {
    await expect400(await post(full(), {}), 'idempotency-key');
    await expect400(await post(full(), { 'idempotency-key': 'has space' }), 'idempotency-key');
    await expect400(await post(full(), { 'idempotency-key': 'x'.repeat(201) }), 'idempotency-key');
    await expect400(await post(full(), { 'idempotency-key': 'ké' }), 'idempotency-key');
    expect((await post(full(), { 'idempotency-key': `~!${'x'.repeat(198)}` })).status).toBe(200);
  });

  it('refuses extra properties at every level', async () => {
    await expect400(await post(full({ extra: 1 })), 'extra');
    await expect400(await post(full({ context: { year: 2025, extra: 1 } })), 'extra');
    await expect400(await post(full({ sheets: [{ name: 'Electricity', rows: [], extra: 1 }] })), 'extra');
  });

  it('checks sheets, rows, cells, names, context and mode', async () => {
    await expect400(await post(full({ sheets: [] })), 'sheets');
    const many = Array.from({ length: 51 }, (_, i) => ({ name: `S${i}`, rows: [] }));
    await expect400(await post(full({ sheets: many })), 'sheets');
    expect((await post(full({ sheets: many.slice(0, 50) }))).status).toBe(200);
    await expect400(await post(full({ sheets: [{ name: '', rows: [] }] })), 'name');
    await expect400(await post(full({ sheets: [{ name: 'x'.repeat(201), rows: [] }] })), 'name');
    await expect400(await post(full({ sheets: sheets([{ Amount: 'x'.repeat(16_001) }]) })), 'Amount');
    expect((await post(full({ sheets: sheets([{ Amount: 'x'.repeat(16_000) }]) }))).status).toBe(200);
    await expect400(await post(full({ sheets: sheets([{ Amount: { nested: 1 } }]) })), 'Amount');
    await expect400(await post(full({ context: { year: 1899 } })), 'year');
    await expect400(await post(full({ context: { year: 2201 } })), 'year');
    await expect400(await post(full({ context: { siteId: '' } })), 'siteId');
    await expect400(await post(full({ context: { siteId: 'not-a-site' } })), 'context.siteId');
    await expect400(await post(full({ mode: 'dry-run' })), 'mode');
    await expect400(
      await post(full({ allowMissingFormSiteCreation: 'yes' })),
      'allowMissingFormSiteCreation',
    );
    await expect400(await post(full({ sourceAdapterDefinitionId: '' })), 'sourceAdapterDefinitionId');
  });

  it('allows at most 10,000 rows in the whole request', async () => {
    const half = Array.from({ length: 5_000 }, () => ({}));
    const ok = await post(
      full({
        sheets: [
          { name: 'Electricity', rows: half },
          { name: 'Fuel', rows: half },
        ],
      }),
    );
    expect(ok.status).toBe(200);
    expect(ok.body.counts).toMatchObject({ total: 10_000, skipped: 10_000 });
    await expect400(
      await post(
        full({
          sheets: [
            { name: 'Electricity', rows: half },
            { name: 'Fuel', rows: [...half, {}] },
          ],
        }),
      ),
      '10001 rows',
    );
    await expect400(await post(full({ sheets: sheets(Array.from({ length: 10_001 }, () => ({}))) })), 'rows');
  });

  it('answers 413 above 10 MiB', async () => {
    const cell = 'x'.repeat(15_000);
    const rows = Array.from({ length: 720 }, () => ({ a: cell }));
    const res = await post(full({ sheets: sheets(rows) }));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('needs an adapterVersion of that definition in the caller’s organization', async () => {
    await expect400(await post(full({ adapterVersion: 'A'.repeat(64) })), 'adapterVersion');
    await expect400(await post(full({ adapterVersion: 'a'.repeat(64) })), 'adapterVersion');
    // A version of another definition of the same organization.
    const other = await api(t, 'POST', '/source-adapter-definitions', {
      token: w.tenant.owner.token,
      body: {
        name: 'other',
        mapping: { sheets: [{ ...(w.mapping as { sheets: object[] }).sheets[0], sheet: 'X' }] },
      },
    });
    await expect400(await post(full({ adapterVersion: other.body.adapterVersion })), 'adapterVersion');
    await expect400(
      await post(full({ sourceAdapterDefinitionId: '00000000-0000-4000-8000-000000000000' })),
      'sourceAdapterDefinitionId',
    );
    // Another organization's definition and version are unknown here.
    const foreign = await createImportWorld(t);
    await expect400(
      await post(
        full({
          sourceAdapterDefinitionId: foreign.adapter.id,
          adapterVersion: foreign.adapter.adapterVersion,
        }),
      ),
      'sourceAdapterDefinitionId',
    );
    // An earlier version stays usable after the definition changed.
    const adapter = await api(t, 'POST', '/source-adapter-definitions', {
      token: w.tenant.owner.token,
      body: { name: 'v', mapping: w.mapping },
    });
    await api(t, 'PUT', `/source-adapter-definitions/${adapter.body.id}`, {
      token: w.tenant.owner.token,
      body: { name: 'v', mapping: { sheets: [(w.mapping as { sheets: object[] }).sheets[1]] } },
    });
    const pinned = await post(
      full({ sourceAdapterDefinitionId: adapter.body.id, adapterVersion: adapter.body.adapterVersion }),
    );
    expect(pinned.status).toBe(200);
    expect(pinned.body.counts).toMatchObject({ parsed: 1, failed: 0 });
    expect(pinned.body.adapterVersion).toBe(adapter.body.adapterVersion);
  });

  it('is a preview without mode; collectors may import, viewers may not', async () => {
    const res = await post(full());
    expect(res.body.execution.attempted).toBe(false);
    expect(res.body.run.status).toBe('previewed');
    const viewer = await api(t, 'POST', '/source-imports', {
      token: w.tenant.viewer.token,
      headers: { 'idempotency-key': newKey() },
      body: full(),
    });
    expect(viewer.status).toBe(403);
  });

  it('marks a run failed when writing raises: nothing written, the key claimable again', async () => {
    // A trigger that refuses one value stands in for a failure in the middle of the write.
    await t.database.system(async (tx) => {
      await sql`
        create or replace function refuse_777() returns trigger language plpgsql as $$
        begin
          if new.value::text = '777' then raise exception 'refused by test trigger'; end if;
          return new;
        end $$`.execute(tx);
      await sql`
        create trigger refuse_777 before insert or update on form_element_submissions
        for each row execute function refuse_777()`.execute(tx);
    });
    const key = newKey();
    const body = full({ mode: 'execute', sheets: sheets([row(10, 5), row(11, 777)]) });
    const failed = await post(body, { 'idempotency-key': key });
    expect(failed.status, JSON.stringify(failed.body)).toBe(200);
    expect(failed.body.run.status).toBe('failed');
    expect(failed.body.run.error).toBeTruthy();
    expect(failed.body.run.processedAt).not.toBeNull();
    expect(failed.body.counts.imported).toBe(0);
    expect(failed.body.run.formValueWriteCount).toBe(0);
    const written = await t.database.tenant(w.tenant.organizationId, (tx) =>
      tx.selectFrom('form_element_submissions').select('id').where('period_unit', 'in', [10, 11]).execute(),
    );
    expect(written).toHaveLength(0);
    await t.database.system((tx) => sql`drop trigger refuse_777 on form_element_submissions`.execute(tx));
    const retried = await post(body, { 'idempotency-key': key });
    expect(retried.body.replayed).toBe(false);
    expect(retried.body.run.id).not.toBe(failed.body.run.id);
    expect(retried.body.run.status).toBe('completed');
  });
});
