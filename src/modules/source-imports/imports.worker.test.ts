import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  createImportWorld,
  type ImportWorld,
  newKey,
  sampleSheets,
} from '../../../test/helpers/import-world.ts';
import { API_PREFIX } from '../../app.ts';
import { HeavyWork } from '../../lib/heavy/pool.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';
import { importLimits, importRunner } from './imports.offload.ts';

// Decision 0233: on PostgreSQL an import of SDCS_IMPORT_WORKER_ROWS rows or more runs in a heavy
// worker on its own connection (here every import: the threshold is 1), with the same answers,
// values, activities (their calculations included), history, site scope and period locks as on
// the request loop (imports.test.ts checks the same fixture there). On PGlite the setting changes
// nothing: its one connection lives on the request loop.
const t = useTestApp({ importWorkerRows: 1 });
const onPostgres = Boolean(process.env['DATABASE_URL']);
let w: ImportWorld;

beforeAll(async () => {
  w = await createImportWorld(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => shutdownSandbox());

describe('a large import in a heavy worker', () => {
  it('runs in the pool on PostgreSQL only, and answers as on the loop', async () => {
    const heavy = new HeavyWork({
      entry: new URL('../../heavy-worker-entry.mjs', import.meta.url),
      workers: 1,
      perOrganization: 1,
      queuePerOrganization: 4,
      memoryBudgetBytes: 256 * 1024 * 1024,
      jobHeapBytes: 256 * 1024 * 1024,
    });
    const tasks: string[] = [];
    const seen = {
      stream: (job: Parameters<HeavyWork['stream']>[0]) => {
        tasks.push(job.task);
        return heavy.stream(job);
      },
    } as unknown as HeavyWork;
    try {
      const url = t.database.serverUrl;
      const run = importRunner(
        seen,
        url ? { databaseUrl: url, minRows: 1, calcRequestBudgetMs: 5_000 } : undefined,
      );
      const caller = await t.database.system((tx) =>
        tx
          .selectFrom('users')
          .select(['id', 'email', 'name'])
          .where('id', '=', w.tenant.owner.userId)
          .executeTakeFirstOrThrow(),
      );
      const result = await run(
        (fn) => t.database.tenant(w.tenant.organizationId, fn),
        {
          userId: caller.id,
          organizationId: w.tenant.organizationId,
          role: 'OWNER',
          isAdmin: false,
          email: caller.email,
          name: caller.name,
          image: null,
          credential: { kind: 'token', id: '00000000-0000-4000-8000-000000000000' },
        },
        'worker-runner-key',
        {
          sourceAdapterDefinitionId: w.adapter.id,
          adapterVersion: w.adapter.adapterVersion,
          sheets: sampleSheets(),
        } as never,
        { pipeline: undefined as never, limits: importLimits({ calcRequestBudgetMs: 5_000 }), log: () => {} },
      ).catch((e: unknown) => e);
      if (onPostgres) {
        // The worker builds its own pipeline: the one given here (none) is never used.
        expect(tasks).toEqual(['source-import']);
        expect(result).toMatchObject({ run: { status: 'previewed' }, counts: { total: 15, ready: 5 } });
      } else {
        // On the loop, with no pipeline given, the preview cannot even start.
        expect(tasks).toEqual([]);
        expect(result).toBeInstanceOf(Error);
      }
    } finally {
      await heavy.close();
    }
  });

  it('writes values, activities and history; refuses rows outside the caller’s sites', async () => {
    const done = await w.run({ mode: 'execute', allowMissingFormSiteCreation: true, sheets: sampleSheets() });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.run).toMatchObject({
      status: 'completed',
      formValueWriteCount: 3,
      activityWriteCount: 2,
    });
    const subs = await api(t, 'GET', `/form-submissions?formId=${w.form.id}&siteId=${w.sites.A}&year=2025`, {
      token: w.tenant.owner.token,
    });
    const values = subs.body.items[0].values as { elementKey: string; periodUnit: number; value: unknown }[];
    // 100 kWh + 0.5 MWh, summed in the element's unit.
    expect(values.find((v) => v.elementKey === 'elec' && v.periodUnit === 1)?.value).toBe(600);
    const acts = await api(t, 'GET', `/activities?formId=${w.form.id}&key=fuel`, {
      token: w.tenant.owner.token,
    });
    // 10 litres x 2.5 and 4 x 2.5, calculated in the worker.
    expect(acts.body.activities.map((a: { value: number }) => a.value).sort()).toEqual([10, 25]);
    const history = await t.database.tenant(w.tenant.organizationId, (tx) =>
      tx.selectFrom('activity_history').select('id').execute(),
    );
    expect(history).toHaveLength(2);

    // The collector reports for A and C only: B's row fails.
    const scoped = await w.run({ sheets: sampleSheets() }, { token: w.tenant.collector.token });
    expect(scoped.status).toBe(200);
    expect(JSON.stringify(scoped.body.issues)).toMatch(/"sheet":"Electricity","rowIndex":2/);
  });

  it('is refused by a period lock, writing nothing', async () => {
    const lock = await api(t, 'POST', '/form-locks', {
      token: w.tenant.owner.token,
      body: { formId: w.form.id, year: 2025, periodUnit: 2 },
    });
    expect(lock.status, JSON.stringify(lock.body)).toBe(200);
    const sheets = [
      { name: 'Electricity', rows: [{ Site: 'B', Year: 2025, Month: 2, Amount: 99, Unit: 'kWh' }] },
    ];
    const res = await w.run({ mode: 'execute', sheets });
    expect(res.status).toBe(200);
    expect(res.body.run.status).toBe('failed');
    expect(res.body.run.error).toMatch(/lock/i);
    const stored = await t.database.tenant(w.tenant.organizationId, (tx) =>
      tx
        .selectFrom('form_element_submissions')
        .select('numeric_value')
        .where('site_id', '=', w.sites.B)
        .where('period_unit', '=', 2)
        .execute(),
    );
    expect(stored.map((r) => Number(r.numeric_value))).toEqual([10]);
  });

  // Mid-way is observed, not guessed: the worker's import holds a transaction open on its own
  // connection (the test's and the service's connections hold none meanwhile).
  it.skipIf(!onPostgres)(
    'stops in the worker when the client disconnects: nothing written, the key free',
    async () => {
      const rows = Array.from({ length: 10_000 }, (_, i) => ({
        Site: i % 2 === 0 ? 'A' : 'B',
        Year: 2025,
        // Odd months: February is locked by the test above.
        Month: 1 + 2 * (i % 6),
        Amount: i + 0.25,
        Unit: 'kWh',
      }));
      const payload = {
        sourceAdapterDefinitionId: w.adapter.id,
        adapterVersion: w.adapter.adapterVersion,
        mode: 'execute',
        sheets: [{ name: 'Electricity', rows }],
      };
      const key = newKey();
      const text = JSON.stringify(payload);
      // Every write of a value adds a history row: none may be added by the stopped import.
      const history = async () =>
        (
          await t.database.tenant(w.tenant.organizationId, (tx) =>
            tx.selectFrom('form_value_history').select('id').execute(),
          )
        ).length;
      const before = await history();
      const req = request({
        host: '127.0.0.1',
        port: (t.app.server.address() as AddressInfo).port,
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
      const openTransactions = async () =>
        Number(
          (
            await t.database.system((tx) =>
              sql<{ n: string }>`select count(*) as n from pg_stat_activity
                 where datname = current_database() and xact_start is not null and pid <> pg_backend_pid()`.execute(
                tx,
              ),
            )
          ).rows[0]!.n,
        );
      for (let i = 0; i < 600 && !answered && (await openTransactions()) === 0; i++)
        await new Promise((r) => setTimeout(r, 25));
      expect(answered).toBe(false);
      req.destroy();
      // The worker's transaction is undone: none stays open, nothing of the import is stored.
      for (let i = 0; i < 400 && (await openTransactions()) > 0; i++)
        await new Promise((r) => setTimeout(r, 25));
      expect(await openTransactions()).toBe(0);
      expect(await history()).toBe(before);
      const runs = await t.database.tenant(w.tenant.organizationId, (tx) =>
        tx.selectFrom('source_import_runs').select('id').where('idempotency_key', '=', key).execute(),
      );
      expect(runs).toHaveLength(0);
      // The key is free: the same request runs in full.
      const again = await w.run({ mode: 'execute', sheets: [{ name: 'Electricity', rows }] }, { key });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body).toMatchObject({ replayed: false, run: { status: 'completed' } });
    },
    120_000,
  );
});
