import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import ExcelJS from 'exceljs';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { createForm, createTenant, type Tenant } from '../../../test/helpers/factories.ts';

// XLSX and Parquet are encoded in the heavy-work pool (decision 0207): the request loop reads pages
// and moves bytes. Eight exports of one organization at once: two run (its share), six wait in
// order, and the event loop stays free for everyone else.
const t = useTestApp({
  exportsPerCaller: 8,
  exportsPerOrganization: 8,
  heavyWorkers: 2,
  heavyPerOrganization: 2,
  heavyQueuePerOrganization: 8,
  // A stream connection per export (the gate's places).
  dbStreamPoolSize: 10,
  metricsToken: 'metrics-token-of-the-offload-test',
});
let tenant: Tenant;
let port: number;
const SITES = 10;
const VALUES = SITES * 50 * 12;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

beforeAll(async () => {
  tenant = await createTenant(t);
  const org = tenant.organizationId;
  const form = await createForm(t, tenant, {
    periodType: 'MONTHLY',
    elements: Array.from({ length: 50 }, (_, i) => ({ key: `e${i}`, label: `Element ${i}`, type: 'NUMBER' })),
  });
  await t.database.system(async (tx) => {
    await sql`select set_config('app.organization_id', ${org}, true)`.execute(tx);
    await sql`insert into sites (organization_id, name, metadata, address)
              select ${org}, 'Plant ' || p, '{}', '{}' from generate_series(1, ${SITES}::int) p`.execute(tx);
    await sql`insert into form_sites (organization_id, form_id, site_id, year)
              select ${org}, ${form.id}::uuid, id, 2025 from sites where organization_id = ${org}`.execute(
      tx,
    );
    await sql`insert into form_submissions (organization_id, form_site_id, user_id)
              select ${org}, id, ${tenant.owner.userId}::uuid from form_sites where organization_id = ${org}`.execute(
      tx,
    );
    await sql`insert into form_element_submissions
                (organization_id, form_submission_id, element_id, period_unit, value, numeric_value, user_id, site_id, year)
              select ${org}, s.id, e.id, m, to_jsonb(m), m, ${tenant.owner.userId}::uuid, fs.site_id, fs.year
                from form_submissions s join form_sites fs on fs.id = s.form_site_id
                cross join unnest(${form.elements.map((e) => e.id)}::uuid[]) e(id)
                cross join generate_series(1, 12) m
               where s.organization_id = ${org}`.execute(tx);
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
}, 120_000);

function open(accept: string) {
  return new Promise<{ res: IncomingMessage; req: ClientRequest }>((resolve, reject) => {
    const req = httpRequest(
      {
        port,
        path: '/api/v1/exports/values?year=2025',
        headers: { authorization: `Bearer ${tenant.owner.token}`, accept },
        // A connection of its own: a kept-alive one from an earlier test may be reset by the
        // server as it is reused (seen as ECONNRESET before this request was sent).
        agent: false,
      },
      (res) => resolve({ res, req }),
    );
    req.on('error', reject);
    req.end();
  });
}

async function download(accept: string): Promise<{ status: number; body: Buffer }> {
  const { res } = await open(accept);
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return { status: res.statusCode ?? 0, body: Buffer.concat(chunks) };
}

/** The heavy pool's running and waiting jobs, as the metrics route tells them. */
async function heavyJobs(): Promise<{ active: number; queued: number }> {
  const res = await t.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: 'Bearer metrics-token-of-the-offload-test' },
  });
  const gauge = (name: string) =>
    Number(new RegExp(`^${name} (\\d+)`, 'm').exec(res.body)?.[1] ?? Number.NaN);
  return { active: gauge('sdcs_heavy_jobs_active'), queued: gauge('sdcs_heavy_jobs_queued') };
}

describe('XLSX and Parquet off the request loop', () => {
  it('runs 8 XLSX exports of one organization in the pool, two at a time, the event loop free (delay p99 < 250 ms, or 6× an idle loop’s)', async () => {
    await download(XLSX); // the workers start (their start-up is not what is measured)
    // The machine's own share of the delay (a shared machine stalls an idle loop too): the same
    // monitor over an idle second, busy with nothing but a timer.
    const idle = monitorEventLoopDelay({ resolution: 10 });
    idle.enable();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    idle.disable();
    const idleP99 = idle.percentile(99) / 1e6;
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    let running = true;
    const seen: { active: number; queued: number }[] = [];
    // Connections of the request loop's stream pool in use (the exports' reading connections).
    let loopReads = 0;
    const watch = (async () => {
      while (running) {
        loopReads = Math.max(loopReads, t.database.streamPoolStats().inUse);
        seen.push(await heavyJobs());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const answers = await Promise.all(Array.from({ length: 8 }, () => download(XLSX)));
    const ms = performance.now() - started;
    delay.disable();
    running = false;
    await watch;
    // The workbooks were made in the pool, two at a time (the organization's share), the rest waiting.
    expect(Math.max(...seen.map((s) => s.active))).toBe(2);
    expect(Math.max(...seen.map((s) => s.queued))).toBeGreaterThanOrEqual(1);
    // On PostgreSQL the workers read the rows on connections of their own (decision 0227): the
    // request loop parses none (before, it read every page on its stream pool and built the cells).
    if (t.database.engine === 'postgres') expect(loopReads).toBe(0);
    const p99 = delay.percentile(99) / 1e6;
    const max = delay.max / 1e6;
    console.info(
      `8 XLSX exports of ${VALUES} values: ${Math.round(ms)} ms; loop delay p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms (idle p99 ${idleP99.toFixed(1)} ms)`,
    );
    for (const answer of answers) expect(answer.status).toBe(200);
    // Every workbook whole (a reader nobody here wrote opens it) and the same.
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(answers[7]!.body as unknown as ArrayBuffer);
    expect(book.worksheets[0]!.rowCount).toBe(VALUES + 1);
    for (const answer of answers) expect(answer.body.length).toBe(answers[0]!.body.length);
    // Generous for a shared machine (2 cores, load ~25 while this was written: an idle loop's p99
    // alone was 14-80 ms there, the exports' 110-420 ms; the bench's figures are in bench/README.md):
    // the machine's own stalls, measured just before, raise the bound.
    expect(p99).toBeLessThan(Math.max(250, 6 * idleP99));
  }, 240_000);

  it('frees the worker when the client goes away mid-export: the organization’s next export runs', async () => {
    for (let i = 0; i < 2; i++) {
      const { res, req } = await open(XLSX);
      expect(res.statusCode).toBe(200);
      await new Promise((resolve) => res.once('data', resolve));
      res.pause();
      // Going away: the reset it causes on this side is expected.
      res.on('error', () => undefined);
      req.on('error', () => undefined);
      req.destroy();
    }
    // Both jobs of the organization's share were cancelled: a third runs to its end.
    const next = await download('application/vnd.apache.parquet');
    expect(next.status).toBe(200);
    expect(next.body.subarray(0, 4).toString()).toBe('PAR1');
    expect(next.body.subarray(-4).toString()).toBe('PAR1');
  }, 120_000);
});
