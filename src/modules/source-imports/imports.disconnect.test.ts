import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import { createImportWorld, type ImportWorld, newKey } from '../../../test/helpers/import-world.ts';
import { API_PREFIX } from '../../app.ts';
import { Turns } from '../../lib/turns.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';

// An import whose client has gone stops at its next turn of the event loop, writes nothing and
// gives its key (and its work) up. Mid-way is observed, not guessed: the import's row loops give
// the loop a turn every few milliseconds (decision 0165), and the client hangs up once they have.
// This is the request loop's path on both engines (on PostgreSQL a large import otherwise runs in a
// heavy worker: imports.worker.test.ts stops one there).
const t = useTestApp({ importWorkerRows: 1_000_000 });
let w: ImportWorld;

beforeAll(async () => {
  w = await createImportWorld(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => shutdownSandbox());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ROWS = 10_000;
const body = () => ({
  sourceAdapterDefinitionId: w.adapter.id,
  adapterVersion: w.adapter.adapterVersion,
  mode: 'execute',
  sheets: [
    {
      name: 'Electricity',
      rows: Array.from({ length: ROWS }, (_, i) => ({
        Site: i % 2 === 0 ? 'A' : 'B',
        Year: 2025,
        Month: (i % 12) + 1,
        Amount: i,
        Unit: 'kWh',
      })),
    },
  ],
});

it('stops a large import when the client disconnects: nothing written, its key given up', async () => {
  const { port } = t.app.server.address() as AddressInfo;
  const key = newKey();
  const text = JSON.stringify(body());
  const turns = vi.spyOn(Turns.prototype, 'give');
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: `${API_PREFIX}/source-imports`,
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'idempotency-key': key,
      authorization: `Bearer ${w.tenant.owner.token}`,
    },
  });
  let answered = false;
  req.on('response', () => (answered = true));
  req.on('error', () => undefined);
  req.end(text);
  // Wait until the import is under way (its row loops have given the loop 10 turns), then hang up.
  for (let i = 0; i < 1200 && turns.mock.calls.length < 10 && !answered; i++) await sleep(25);
  expect(answered).toBe(false);
  expect(turns.mock.calls.length).toBeGreaterThanOrEqual(10);
  req.destroy();
  // It stops at its next turn: a few more at most, not the hundreds a whole import takes.
  await sleep(500);
  const atStop = turns.mock.calls.length;
  await sleep(1_500);
  expect(turns.mock.calls.length - atStop).toBeLessThanOrEqual(2);
  turns.mockRestore();

  const written = await t.database.tenant(w.tenant.organizationId, async (tx) => ({
    values: (await tx.selectFrom('form_element_submissions').select('id').execute()).length,
    runs: (await tx.selectFrom('source_import_runs').select('id').execute()).length,
  }));
  expect(written).toEqual({ values: 0, runs: 0 });
  // The key is free and nothing of the import holds on: the same request runs in full.
  const again = await api(t, 'POST', '/source-imports', {
    token: w.tenant.owner.token,
    headers: { 'idempotency-key': key },
    body: body(),
  });
  expect(again.status, JSON.stringify(again.body)).toBe(200);
  expect(again.body).toMatchObject({ replayed: false, counts: { total: ROWS, imported: 12 } });
}, 120_000);
