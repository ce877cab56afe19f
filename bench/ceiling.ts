// The request path against its ceiling, on PostgreSQL (DATABASE_URL required) and, for the record,
// on PGlite. Each figure is measured in the same run as its baseline:
// - GET /api/v1/activities (a page of 100) against a bare `node:http` + `pg` server answering the
//   same rows with one SELECT in the same order (10 connections, loopback);
// - the first page's time (one request at a time) with 1,000 and with 100,000 activities on the
//   element (a page's cost should not grow with the data behind it);
// - POST /api/v1/form-submissions with 50 NUMBER values against the minimal durable work from a bare
//   `pg` client: one transaction of a 50-row upsert into a uniquely indexed table and a 50-row
//   history insert, 10 clients in parallel.
// `DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- ceiling`
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { shutdownSandbox } from '../src/sandbox/index.ts';
import { call, engines, freshDatabase, median } from './lib.ts';

const DURATION_S = Number(process.env['BENCH_SECONDS'] ?? 6);
const CONNECTIONS = 10;
const SMALL = 1_000;
const LARGE = Number(process.env['BENCH_LARGE'] ?? 100_000);
const PER_SUBMISSION = 1_000;
const NUMBERS = 50;

async function load(options: autocannon.Options) {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...options });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${options.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return { rps: Math.round(result.requests.average), p99: result.latency.p99 };
}

/** Median time of `n` sequential GETs of one URL. */
async function sequential(url: string, headers: Record<string, string>, n = 30) {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** The bare server: one SELECT of the page in the service's order, no framework. */
function bareServer(pool: pg.Pool, organizationId: string, elementId: string) {
  const server = http.createServer(async (_req, res) => {
    const { rows } = await pool.query(
      `select a.id, a.form_element_submission_id, a.input, a.value, a.site_id, s.name as site_name,
              a.year, a.period_unit, a.metadata
         from activities a
         join form_sites fs on fs.organization_id = a.organization_id and fs.id = a.form_site_id
         join sites s on s.organization_id = a.organization_id and s.id = a.site_id
        where a.organization_id = $1 and a.element_id = $2 and fs.active
        order by lower(s.name) collate "C", s.name collate "C", a.site_id, a.year, a.period_unit, a.position, a.id
        limit 100`,
      [organizationId, elementId],
    );
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ activities: rows }));
  });
  return new Promise<http.Server>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const portOf = (server: { address(): unknown }) => (server.address() as { port: number }).port;
const rows: string[] = [];

const only = process.env['BENCH_ENGINE'];
for (const engine of engines().filter((e) => !only || e === only)) {
  const { database, config, drop } = await freshDatabase(engine);
  const app = await buildApp({ database, config });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${portOf(app.server)}/api/v1`;
  const org = (await createOrganizationWithKey(database, {
    organizationName: 'Bench',
    email: 'bench@example.com',
    name: 'Bench',
    password: null,
  }))!;
  const key = org.apiKey;
  const headers = { authorization: `Bearer ${key}` };
  const sites: Array<{ id: string }> = [];
  for (let i = 0; i < 10; i++) sites.push(await call(app, key, 'POST', '/sites', { name: `Plant ${i}` }));
  const definition = await call(app, key, 'POST', '/activity-definitions', {
    name: 'Fuel',
    key: 'fuel',
    uiCode: '',
    calcCode: 'return { value: inputs.litres * 2.5 };',
    inputs: [{ name: 'litres', type: 'number', required: true }],
  });
  const years = Array.from({ length: 9 }, (_, i) => 2016 + i);
  const form = await call(app, key, 'POST', '/forms', {
    name: 'Monthly',
    periodType: 'MONTHLY',
    elements: [
      { key: 'fuel', label: 'Fuel', type: 'ACTIVITY', activityDefinitionId: definition.id },
      ...Array.from({ length: NUMBERS }, (_, i) => ({ key: `n${i}`, label: `Number ${i}`, type: 'NUMBER' })),
    ],
  });
  await call(app, key, 'PUT', '/form-sites', { formId: form.id, siteIds: sites.map((s) => s.id), years });
  const elementId: string = form.elements.find((e: { key: string }) => e.key === 'fuel').id;
  const submitActivities = (site: number, year: number, month: number) =>
    call(app, key, 'POST', '/form-submissions', {
      formId: form.id,
      siteId: sites[site]!.id,
      year,
      values: [
        {
          elementKey: 'fuel',
          periodUnit: month,
          value: Array.from({ length: PER_SUBMISSION }, (_, i) => ({ litres: i + 1 })),
        },
      ],
    });

  // 1,000 activities: one submission.
  await submitActivities(0, 2016, 1);
  const listUrl = `${base}/activities?formId=${form.id}&key=fuel&limit=100`;
  const firstSmall = await sequential(listUrl, headers);
  const pool = new pg.Pool({ connectionString: config.databaseUrl ?? undefined, max: CONNECTIONS });
  const bare = engine === 'postgres' ? await bareServer(pool, org.organization.id, elementId) : null;
  const service = await load({ url: listUrl, headers });
  if (bare) {
    const ceiling = await load({ url: `http://127.0.0.1:${portOf(bare)}/` });
    rows.push(
      `| ${engine} | GET /activities, page of 100 of ${SMALL} | ${service.rps} (p99 ${service.p99} ms) | ${ceiling.rps} (p99 ${ceiling.p99} ms) | ${(service.rps / ceiling.rps).toFixed(2)} |`,
    );
  } else {
    rows.push(
      `| ${engine} | GET /activities, page of 100 of ${SMALL} | ${service.rps} (p99 ${service.p99} ms) | - | - |`,
    );
  }

  // Grow to LARGE activities (spread over sites, years and months), then the first page again.
  let count = SMALL;
  outer: for (const year of years) {
    for (let month = 1; month <= 12; month++) {
      for (let site = 0; site < sites.length; site++) {
        if (count >= LARGE) break outer;
        if (site === 0 && year === 2016 && month === 1) continue;
        await submitActivities(site, year, month);
        count += PER_SUBMISSION;
      }
    }
  }
  const firstStale = await sequential(listUrl, headers, 3);
  if (pool) await pool.query('analyze');
  const firstLarge = await sequential(listUrl, headers);
  console.log(`first page before analyze ${firstStale.toFixed(1)} ms, after ${firstLarge.toFixed(1)} ms`);
  rows.push(
    `| ${engine} | first page alone: ${SMALL} -> ${count} activities | ${firstSmall.toFixed(1)} ms -> ${firstLarge.toFixed(1)} ms | | ${(firstLarge / firstSmall).toFixed(2)}× |`,
  );

  // POST /form-submissions with 50 changing NUMBER values.
  const submitUrl = `${base}/form-submissions`;
  const submitBody = () =>
    JSON.stringify({
      formId: form.id,
      siteId: sites[Math.floor(Math.random() * sites.length)]!.id,
      year: years[Math.floor(Math.random() * years.length)],
      values: Array.from({ length: NUMBERS }, (_, i) => ({
        elementKey: `n${i}`,
        periodUnit: 1 + Math.floor(Math.random() * 12),
        value: Math.round(Math.random() * 1e6) / 100,
      })),
    });
  const writes = await load({
    url: submitUrl,
    requests: [
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: submitBody() }),
      },
    ],
  });
  if (pool) {
    // The minimal durable work: the same rows into a uniquely indexed table plus their history.
    const suffix = randomBytes(3).toString('hex');
    await pool.query(`create table bench_values_${suffix} (
      id uuid primary key default gen_random_uuid(), slot text not null unique, value numeric)`);
    await pool.query(`create table bench_history_${suffix} (
      id bigserial primary key, value_id uuid not null, value numeric, changed_at timestamptz default now())`);
    let done = 0;
    const until = performance.now() + DURATION_S * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < until) {
          const slots = Array.from({ length: NUMBERS }, (_, i) => `${Math.floor(Math.random() * 1080)}:${i}`);
          const values = slots.map(() => Math.round(Math.random() * 1e6) / 100);
          const client = await pool.connect();
          try {
            await client.query('begin');
            await client.query(
              `with up as (
                 insert into bench_values_${suffix} (slot, value)
                 select * from unnest($1::text[], $2::numeric[])
                 on conflict (slot) do update set value = excluded.value
                 returning id, value)
               insert into bench_history_${suffix} (value_id, value) select id, value from up`,
              [slots, values],
            );
            await client.query('commit');
            done++;
          } finally {
            client.release();
          }
        }
      }),
    );
    const ceiling = Math.round(done / DURATION_S);
    rows.push(
      `| ${engine} | POST /form-submissions, 50 values | ${writes.rps} (p99 ${writes.p99} ms) | ${ceiling} tx/s | ${(writes.rps / ceiling).toFixed(2)} |`,
    );
    await pool.query(`drop table bench_values_${suffix}, bench_history_${suffix}`);
  } else {
    rows.push(
      `| ${engine} | POST /form-submissions, 50 values | ${writes.rps} (p99 ${writes.p99} ms) | - | - |`,
    );
  }
  await new Promise((resolve) => (bare ? bare.close(resolve) : resolve(null)));
  await pool?.end();
  await app.close();
  await drop();
}
await shutdownSandbox();

console.log(`Ceiling: ${CONNECTIONS} connections, ${DURATION_S} s per measurement, loopback`);
console.log('| engine | what | service req/s | bare ceiling | ratio |');
console.log('|---|---|---|---|---|');
for (const row of rows) console.log(row);
