import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { createForm, createTenant, type Tenant } from '../../../test/helpers/factories.ts';

// CSV and NDJSON on PostgreSQL are read and encoded in the export lane's one worker thread, many at
// once (decision 0235): the request loop parses no row and the heavy pool's share is not taken.
const t = useTestApp({
  exportsPerCaller: 8,
  exportsPerOrganization: 8,
  dbStreamPoolSize: 10,
  metricsToken: 'metrics-token-of-the-lane-test',
});
let tenant: Tenant;
let port: number;
const SITES = 4;
const VALUES = SITES * 50 * 12;

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

function download(accept: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        port,
        path: '/api/v1/exports/values?year=2025',
        headers: { authorization: `Bearer ${tenant.owner.token}`, accept },
        agent: false,
      },
      async (res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of res) chunks.push(chunk as Buffer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The heavy pool's running jobs, as the metrics route tells them. */
async function heavyActive(): Promise<number> {
  const res = await t.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: 'Bearer metrics-token-of-the-lane-test' },
  });
  return Number(/^sdcs_heavy_jobs_active (\d+)/m.exec(res.body)?.[1] ?? Number.NaN);
}

describe('CSV and NDJSON exports in the export lane', () => {
  it('runs CSV and NDJSON exports at once off the request loop, each whole, without the heavy share', async () => {
    const alone = await download('text/csv'); // the lane's worker starts (not what is measured)
    expect(alone.status).toBe(200);
    const idle = monitorEventLoopDelay({ resolution: 10 });
    idle.enable();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    idle.disable();
    const idleP99 = idle.percentile(99) / 1e6;
    let running = true;
    let loopReads = 0;
    let heavy = 0;
    const watch = (async () => {
      while (running) {
        loopReads = Math.max(loopReads, t.database.streamPoolStats().inUse);
        heavy = Math.max(heavy, await heavyActive());
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    // Four of each at once on PostgreSQL (the lane's case); one of each on PGlite (read on its loop).
    const each = t.database.engine === 'postgres' ? 4 : 1;
    const answers = await Promise.all(
      ['text/csv', 'application/x-ndjson'].flatMap((accept) =>
        Array.from({ length: each }, () => download(accept)),
      ),
    );
    delay.disable();
    running = false;
    await watch;
    for (const answer of answers) expect(answer.status).toBe(200);
    const csv = answers.slice(0, each);
    const ndjson = answers.slice(each);
    // Every answer whole: a header and one line per value (CSV: BOM, CRLF), the same bytes each time.
    const lines = csv[0]!.body.toString('utf8').split('\r\n');
    expect(lines[0]!.startsWith('\ufeffvalueId,')).toBe(true);
    expect(lines.filter(Boolean)).toHaveLength(VALUES + 1);
    for (const answer of [alone, ...csv]) expect(answer.body.equals(csv[0]!.body)).toBe(true);
    const objects = ndjson[0]!.body
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(objects).toHaveLength(VALUES);
    expect(new Set(objects.map((o) => o.valueId)).size).toBe(VALUES);
    for (const answer of ndjson) expect(answer.body.equals(ndjson[0]!.body)).toBe(true);
    // No heavy job: the organization's share of heavy work stays free for its workbooks and imports.
    expect(heavy).toBe(0);
    if (t.database.engine === 'postgres') {
      // The lane's worker read the rows on connections of its own: the loop's stream pool was idle.
      expect(loopReads).toBe(0);
      const p99 = delay.percentile(99) / 1e6;
      console.info(
        `8 text exports of ${VALUES} values in the lane: loop delay p99 ${p99.toFixed(1)} ms (idle ${idleP99.toFixed(1)} ms)`,
      );
      expect(p99).toBeLessThan(Math.max(250, 6 * idleP99));
    }
  }, 240_000);
});
