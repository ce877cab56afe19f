import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createImportWorld, type ImportWorld, newKey } from '../../../test/helpers/import-world.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

// Imports answered at once (`Prefer: respond-async`, decision 0226): 202 with the pending run and
// its Location; the import runs after the answer; a retry answers the same run; values are
// stored once.
const t = useTestApp();
let w: ImportWorld;

beforeAll(async () => {
  w = await createImportWorld(t);
});
afterAll(() => shutdownSandbox());

const ROWS = 3_000;
/** Rows on site A (odd months: January, March, …) and B (even months), summed: 12 values. */
const rows = (shift = 0) =>
  Array.from({ length: ROWS }, (_, i) => ({
    Site: i % 2 === 0 ? 'A' : 'B',
    Year: 2025,
    Month: (i % 12) + 1,
    Amount: i + shift,
    Unit: 'kWh',
  }));
const body = (extra: Record<string, unknown> = {}) => ({
  sourceAdapterDefinitionId: w.adapter.id,
  adapterVersion: w.adapter.adapterVersion,
  mode: 'execute',
  sheets: [{ name: 'Electricity', rows: rows() }],
  ...extra,
});
const post = (payload: unknown, key: string, prefer = 'respond-async') =>
  api(t, 'POST', '/source-imports', {
    token: w.tenant.owner.token,
    headers: { 'idempotency-key': key, prefer },
    body: payload,
  });

/** Runs the queued jobs (a listening service polls for them), then GETs the run until it is settled. */
async function settled(location: string) {
  const path = location.replace(/^\/api\/v1/, '');
  for (let i = 0; i < 600; i++) {
    await t.app.jobs.drain();
    const res = await api(t, 'GET', path, { token: w.tenant.owner.token });
    expect(res.status).toBe(200);
    if (!['pending', 'processing'].includes(res.body.run.status)) return res.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the run did not finish in 30 s');
}

const stored = () =>
  t.database.tenant(w.tenant.organizationId, async (tx) => ({
    values: await tx
      .selectFrom('form_element_submissions')
      .select(['id', 'site_id', 'period_unit', 'numeric_value'])
      .where('deleted_at', 'is', null)
      .execute(),
    history: (await tx.selectFrom('form_value_history').select('value_id').execute()).length,
  }));

describe('POST /source-imports with Prefer: respond-async', () => {
  it('answers 202 with the pending run, imports after the answer, and stores each value once', async () => {
    const key = newKey();
    const accepted = await post(body(), key);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(accepted.headers['preference-applied']).toBe('respond-async');
    const runId = accepted.body.run.id;
    expect(accepted.headers['location']).toBe(`/api/v1/source-imports/${runId}`);
    expect(accepted.body).toMatchObject({ replayed: false, run: { status: 'pending', id: runId } });

    // A retry while it runs answers the same run; the key with another body is refused.
    const retry = await post(body(), key);
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ replayed: true, run: { id: runId } });
    const other = await post(body({ sheets: [{ name: 'Electricity', rows: rows(1) }] }), key);
    expect(other.status).toBe(409);

    const done = await settled(String(accepted.headers['location']));
    expect(done.run.status).toBe('completed');
    expect(done.counts).toMatchObject({ total: ROWS, parsed: ROWS, ready: 12, imported: 12, failed: 0 });

    const { values, history } = await stored();
    expect(values).toHaveLength(12);
    expect(history).toBe(12);
    // Site A, January: the rows i = 0, 12, 24, … (even, i % 12 = 0).
    const expected = Array.from({ length: ROWS }, (_, i) => i)
      .filter((i) => i % 2 === 0 && i % 12 === 0)
      .reduce((s, i) => s + i, 0);
    const januaryA = values.find((v) => v.site_id === w.sites.A && v.period_unit === 1);
    expect(Number(januaryA?.numeric_value)).toBe(expected);

    // After it finished, the retry still answers the same run and writes nothing more.
    const after = await post(body(), key);
    expect(after.status).toBe(202);
    expect(after.body).toMatchObject({ replayed: true, run: { id: runId, status: 'completed' } });
    // A synchronous retry gets the stored answer.
    const sync = await api(t, 'POST', '/source-imports', {
      token: w.tenant.owner.token,
      headers: { 'idempotency-key': key },
      body: body(),
    });
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ replayed: true, run: { id: runId }, counts: { imported: 12 } });
    expect((await stored()).history).toBe(12);
  });

  it('refuses at once what it can refuse before a run exists', async () => {
    const res = await post(body({ adapterVersion: 'f'.repeat(64) }), newKey());
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.issues)).toContain('adapterVersion');
  });

  it('fails the run (and gives its key up) when the import is refused after the answer', async () => {
    const key = newKey();
    const missing = '00000000-0000-4000-8000-000000000000';
    const accepted = await post(body({ context: { siteId: missing } }), key);
    expect(accepted.status).toBe(202);
    const done = await settled(String(accepted.headers['location']));
    expect(done.run.status).toBe('failed');
    expect(done.run.error).toContain('context.siteId');
    // The key was given up: the corrected request is a new run.
    const again = await post(body({ mode: 'preview' }), key);
    expect(again.status).toBe(202);
    expect(again.body.run.id).not.toBe(accepted.body.run.id);
    expect((await settled(String(again.headers['location']))).run.status).toBe('previewed');
  });

  it('keeps a small import without the preference synchronous (200)', async () => {
    const res = await post(
      body({ mode: 'preview', sheets: [{ name: 'Electricity', rows: rows().slice(0, 5) }] }),
      newKey(),
      '',
    );
    expect(res.status).toBe(200);
    expect(res.body.run.status).toBe('previewed');
  });
});
