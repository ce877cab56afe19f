// The request path against its ceiling, on PostgreSQL (DATABASE_URL required) and, for the record,
// on PGlite. Each figure is measured in the same run as its baseline:
// - GET /api/v1/activities (a page of 100) against a bare `node:http` + `pg` server answering the
//   same rows with one SELECT in the same order (10 connections, loopback);
// - the first page's time (one request at a time) with 1,000 and with 100,000 activities on the
//   element (a page's cost should not grow with the data behind it);
// - GET /api/v1/form-submissions (90 submissions of a form, 5 values each), GET /api/v1/sites (1,000 sites)
//   and GET /api/v1/dataset-items (1,000 items), each against a bare server running the same
//   SELECTs (without the total) in the same order;
// - the first page of GET /api/v1/form-submissions (one request at a time) with 1,000 and with 100,000
//   submissions (10 forms x 1,000 sites x 10 years, written in bulk by SQL in an organization of its own);
// - POST /api/v1/form-submissions with 50 NUMBER values, then 500 (50 elements x 10 months), against
//   the minimal durable work from a bare `pg` client: one transaction of a 50-row (500-row) upsert
//   into a uniquely indexed table and a 50-row (500-row) history insert, 10 clients in parallel.
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

/** A bare server answering every request with `answer(pool)` as JSON. */
function bareJson(pool: pg.Pool, answer: (pool: pg.Pool) => Promise<unknown>) {
  const server = http.createServer(async (_req, res) => {
    const body = JSON.stringify(await answer(pool));
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
  return new Promise<http.Server>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** One row of the table: the service against its bare equivalent, measured one after the other. */
async function against(
  engine: string,
  what: string,
  url: string,
  headers: Record<string, string>,
  pool: pg.Pool | null,
  answer: (pool: pg.Pool) => Promise<unknown>,
) {
  if (!pool) {
    const service = await load({ url, headers });
    rows.push(`| ${engine} | ${what} | ${service.rps} (p99 ${service.p99} ms) | - | - |`);
    return;
  }
  // Service and bare server alternate, twice each, and each keeps its better run: on a shared
  // machine the load drifts during a measurement.
  const bare = await bareJson(pool, answer);
  const bareUrl = `http://127.0.0.1:${portOf(bare)}/`;
  const better = (a: Awaited<ReturnType<typeof load>>, b: Awaited<ReturnType<typeof load>>) =>
    a.rps >= b.rps ? a : b;
  let service = await load({ url, headers });
  let ceiling = await load({ url: bareUrl });
  service = better(service, await load({ url, headers }));
  ceiling = better(ceiling, await load({ url: bareUrl }));
  await new Promise((resolve) => bare.close(resolve));
  rows.push(
    `| ${engine} | ${what} | ${service.rps} (p99 ${service.p99} ms) | ${ceiling.rps} (p99 ${ceiling.p99} ms) | ${(service.rps / ceiling.rps).toFixed(2)} |`,
  );
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
  // The bare side needs a server: none on PGlite.
  const pool =
    engine === 'postgres' ? new pg.Pool({ connectionString: config.databaseUrl!, max: CONNECTIONS }) : null;
  // An idle client whose connection is ended (another suite's outage test) must not end the run.
  pool?.on('error', () => undefined);
  await against(engine, `GET /activities, page of 100 of ${SMALL}`, listUrl, headers, pool, async (p) => ({
    activities: (
      await p.query(
        `select a.id, a.form_element_submission_id, a.input, a.value, a.site_id, s.name as site_name,
                  a.year, a.period_unit, a.metadata
             from activities a
             join form_sites fs on fs.organization_id = a.organization_id and fs.id = a.form_site_id
             join sites s on s.organization_id = a.organization_id and s.id = a.site_id
            where a.organization_id = $1 and a.element_id = $2 and fs.active
            order by lower(s.name) collate "C", s.name collate "C", a.site_id, a.year, a.period_unit, a.position, a.id
            limit 100`,
        [org.organization.id, elementId],
      )
    ).rows,
  }));

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

  // The other list routes, each against the same SELECTs from a bare server.
  const org1 = org.organization.id;
  // A form of 5 NUMBER elements with a submission on every (site, year): 90 submissions.
  const numbers = await call(app, key, 'POST', '/forms', {
    name: 'Readings',
    periodType: 'MONTHLY',
    elements: Array.from({ length: 5 }, (_, i) => ({ key: `r${i}`, label: `Reading ${i}`, type: 'NUMBER' })),
  });
  await call(app, key, 'PUT', '/form-sites', { formId: numbers.id, siteIds: sites.map((s) => s.id), years });
  for (const site of sites) {
    for (const year of years) {
      await call(app, key, 'POST', '/form-submissions', {
        formId: numbers.id,
        siteId: site.id,
        year,
        values: Array.from({ length: 5 }, (_, i) => ({
          elementKey: `r${i}`,
          periodUnit: 1 + i,
          value: i + 0.5,
        })),
      });
    }
  }
  await against(
    engine,
    'GET /form-submissions, page of 90 with 5 values each',
    `${base}/form-submissions?formId=${numbers.id}&limit=100`,
    headers,
    pool,
    async (p) => {
      const page = await p.query(
        `select s.id, s.organization_id, s.form_site_id, s.user_id, s.created_at, s.updated_at,
                fs.form_id, fs.site_id, fs.year
           from form_submissions s
           join form_sites fs on fs.organization_id = s.organization_id and fs.id = s.form_site_id
           join forms f on f.organization_id = fs.organization_id and f.id = fs.form_id
          where s.organization_id = $1 and fs.form_id = $2 and fs.active and f.deleted_at is null
          order by fs.year desc, fs.form_id, fs.site_id
          limit 100`,
        [org1, numbers.id],
      );
      const values = await p.query(
        `select v.*, e.key as element_key, u.name as user_name, u.email as user_email, u.image as user_image
           from form_element_submissions v
           join form_elements e on e.organization_id = v.organization_id and e.id = v.element_id
           join users u on u.id = v.user_id
          where v.organization_id = $1 and v.form_submission_id = any($2::uuid[])
            and v.deleted_at is null and e.deleted_at is null
          order by v.form_submission_id, e.position, e.key, v.period_unit, v.timestamp`,
        [org1, page.rows.map((r) => r.id)],
      );
      return { items: page.rows, values: values.rows };
    },
  );
  const siteLines = ['name,code,parent'];
  for (let i = 0; i < 990; i++) siteLines.push(`Depot ${i},D${i},`);
  await call(app, key, 'POST', '/sites/import', { csvContent: siteLines.join('\n'), organizationId: org1 });
  await against(
    engine,
    'GET /sites, 1,000 sites',
    `${base}/sites`,
    headers,
    pool,
    async (p) =>
      (
        await p.query(
          `select id, parent_id, name, code, latitude, longitude, address, metadata, created_at, updated_at
           from sites where organization_id = $1
          order by lower(name) collate "C", name collate "C", id`,
          [org1],
        )
      ).rows,
  );
  const dataset = await call(app, key, 'POST', '/datasets', { name: 'Factors' });
  const itemLines = ['label,key,value,unit,year'];
  for (let i = 0; i < 1000; i++) itemLines.push(`Factor ${i},f-${i},${(i + 1) / 7},kgCO2e,2024`);
  await call(app, key, 'POST', `/datasets/${dataset.id}/import`, { csvContent: itemLines.join('\n') });
  await against(
    engine,
    'GET /dataset-items, 1,000 items',
    `${base}/dataset-items`,
    headers,
    pool,
    async (p) =>
      (
        await p.query(
          `select i.id, i.name, i.year, i.dataset_id, d.name as dataset_name, i.tags, i.metadata, i.input_unit_id,
                  i.key, i.value, i.unit
             from dataset_items i
             join datasets d on d.organization_id = i.organization_id and d.id = i.dataset_id
            where i.organization_id = $1
           union all
           select i.id, i.name, i.year, i.dataset_id, d.name, i.tags, i.metadata, i.input_unit_id,
                  i.key, i.value, i.unit
             from datasets d
             join dataset_items i on i.organization_id = d.organization_id and i.dataset_id = d.id
            where d.is_common and d.organization_id <> $1`,
          [org1],
        )
      ).rows,
  );

  // POST /form-submissions with 50 (then 500: 50 elements x 10 months) changing NUMBER values.
  const submitUrl = `${base}/form-submissions`;
  for (const count of [NUMBERS, NUMBERS * 10]) {
    const submitBody = () =>
      JSON.stringify({
        formId: form.id,
        siteId: sites[Math.floor(Math.random() * sites.length)]!.id,
        year: years[Math.floor(Math.random() * years.length)],
        values: Array.from({ length: count }, (_, i) => ({
          elementKey: `n${i % NUMBERS}`,
          periodUnit: count === NUMBERS ? 1 + Math.floor(Math.random() * 12) : 1 + Math.floor(i / NUMBERS),
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
    const what = `POST /form-submissions, ${count} values`;
    if (!pool) {
      rows.push(`| ${engine} | ${what} | ${writes.rps} (p99 ${writes.p99} ms) | - | - |`);
      continue;
    }
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
          const slots = Array.from({ length: count }, (_, i) => `${Math.floor(Math.random() * 1080)}:${i}`);
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
      `| ${engine} | ${what} | ${writes.rps} (p99 ${writes.p99} ms) | ${ceiling} tx/s | ${(writes.rps / ceiling).toFixed(2)} |`,
    );
    await pool.query(`drop table bench_values_${suffix}, bench_history_${suffix}`);
  }

  // The first page of GET /form-submissions (no filter) with 1,000 and with LARGE submissions, in an
  // organization of its own (10 forms x 1,000 sites x 10 years), the rows written in bulk by SQL.
  const scale = (await createOrganizationWithKey(database, {
    organizationName: 'Scale',
    email: 'scale@example.com',
    name: 'Scale',
    password: null,
  }))!;
  const scaleForms: string[] = [];
  for (let i = 0; i < 10; i++) {
    const f = await call(app, scale.apiKey, 'POST', '/forms', {
      name: `Scale ${i}`,
      periodType: 'YEARLY',
      elements: [{ key: 'x', label: 'X', type: 'NUMBER' }],
    });
    scaleForms.push(f.id);
  }
  const scaleOrg = scale.organization.id;
  const addSubmissions = (forms: string[], siteFrom: number, siteTo: number) =>
    database.execScript(`
      insert into form_sites (organization_id, form_id, site_id, year)
        select '${scaleOrg}', f, s.id, y
          from unnest(array['${forms.join("','")}']::uuid[]) f
          cross join sites s cross join generate_series(2016, 2025) y
         where s.organization_id = '${scaleOrg}' and (s.metadata ->> 'n')::int between ${siteFrom} and ${siteTo}
        on conflict do nothing;
      insert into form_submissions (organization_id, form_site_id, user_id)
        select organization_id, id, '${scale.user.id}' from form_sites where organization_id = '${scaleOrg}'
        on conflict do nothing;`);
  await database.execScript(`
    insert into sites (organization_id, name, code, metadata)
      select '${scaleOrg}', 'Site ' || n, 'S' || n, jsonb_build_object('n', n) from generate_series(1, 1000) n;`);
  await addSubmissions(scaleForms.slice(0, 1), 1, 100);
  await database.execScript('analyze');
  const scaleHeaders = { authorization: `Bearer ${scale.apiKey}` };
  const scaleUrl = `${base}/form-submissions?limit=100`;
  const subsSmall = await sequential(scaleUrl, scaleHeaders);
  await addSubmissions(scaleForms, 1, 1000);
  const total: number = (await call(app, scale.apiKey, 'GET', '/form-submissions?limit=1')).pagination.total;
  await database.execScript('analyze');
  const subsLarge = await sequential(scaleUrl, scaleHeaders);
  rows.push(
    `| ${engine} | GET /form-submissions first page alone: 1000 -> ${total} submissions | ${subsSmall.toFixed(1)} ms -> ${subsLarge.toFixed(1)} ms | | ${(subsLarge / subsSmall).toFixed(2)}× |`,
  );
  await pool?.end();
  await app.close();
  await drop();
}
await shutdownSandbox();

console.log(`Ceiling: ${CONNECTIONS} connections, ${DURATION_S} s per measurement, loopback`);
console.log('| engine | what | service req/s | bare ceiling | ratio |');
console.log('|---|---|---|---|---|');
for (const row of rows) console.log(row);
