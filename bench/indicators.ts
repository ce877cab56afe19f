// Indicators: POST /api/v1/indicators/current-values for 10 indicators at the root of a tree of
// SITES sites (descendants included) over SITES × 12 months × 80 NUMBER elements of stored
// values, and GET /api/v1/indicators with 500 indicators, through app.inject, on each engine.
// `npm run bench -- indicators` (SITES=1000 by default: 960,000 values).
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { valuesRepository } from '../src/modules/indicators/values.repository.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { call, engines, freshDatabase, median } from './lib.ts';

const SITES = Number(process.env['SITES'] ?? 1000);
const ELEMENTS = 80;
const MONTHS = 12;
const INDICATORS = 500;
const RUNS = 5;



async function timed(fn: () => Promise<unknown>): Promise<number[]> {
  await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times;
}

const rows: string[] = [];
const only = process.env['ENGINES']?.split(',');
for (const engine of engines().filter((e) => !only || only.includes(e))) {
  const { database, config, drop } = await freshDatabase(engine);
  const app = await buildApp({ database, config });
  await app.ready();
  const org = await createOrganizationWithKey(database, {
    organizationName: 'Bench',
    email: 'bench@example.com',
    name: 'Bench',
    password: null,
  });
  const key = org!.apiKey;
  const orgId = org!.organization.id;
  const userId = org!.user.id;
  const units = (await call(app, key, 'GET', '/units')) as { id: string; symbol: string }[];
  const kwh = units.find((u) => u.symbol === 'kWh')!.id;
  const root = await call(app, key, 'POST', '/sites', { name: 'Group' });
  const form = await call(app, key, 'POST', '/forms', {
    name: 'Energy',
    periodType: 'MONTHLY',
    elements: Array.from({ length: ELEMENTS }, (_, i) => ({
      key: `e${i}`,
      label: `Element ${i}`,
      type: 'NUMBER',
      unitId: kwh,
      aggregation: i % 10 === 9 ? 'LAST' : 'SUM',
    })),
  });
  const elementIds: string[] = form.elements.map((e: { id: string }) => e.id);

  const seedStart = performance.now();
  await database.system(async (tx) => {
    await sql`select set_config('app.organization_id', ${orgId}, true)`.execute(tx);
    // Ten regions under the root, the plants spread below them.
    await sql`
      insert into sites (organization_id, name, parent_id, metadata, address)
      select ${orgId}, 'Region ' || r, ${root.id}::uuid, '{}', '{}' from generate_series(1, 10) r`.execute(
      tx,
    );
    await sql`
      insert into sites (organization_id, name, parent_id, metadata, address)
      select ${orgId}, 'Plant ' || p, (select id from sites where organization_id = ${orgId} and name = 'Region ' || (1 + p % 10)), '{}', '{}'
        from generate_series(1, ${SITES}) p`.execute(tx);
    await sql`
      insert into form_sites (organization_id, form_id, site_id, year)
      select ${orgId}, ${form.id}::uuid, id, 2025 from sites where organization_id = ${orgId} and name like 'Plant %'`.execute(
      tx,
    );
    await sql`
      insert into form_submissions (organization_id, form_site_id, user_id)
      select ${orgId}, id, ${userId}::uuid from form_sites where organization_id = ${orgId}`.execute(tx);
    await sql`
      insert into form_element_submissions
        (organization_id, form_submission_id, element_id, period_unit, value, numeric_value, status, user_id)
      select ${orgId}, s.id, e.id, m, to_jsonb(v), v, case when m % 3 = 0 then 'APPROVED' else 'COMPLETED' end, ${userId}::uuid
        from form_submissions s
        cross join unnest(${elementIds}::uuid[]) e(id)
        cross join generate_series(1, ${MONTHS}) m
        cross join lateral (select (10 + (abs(hashtext(s.id::text || e.id::text)) % 1000) + m)::float8 as v) val
       where s.organization_id = ${orgId}`.execute(tx);
  });
  await database.system((tx) => sql`analyze`.execute(tx));
  const seedSeconds = (performance.now() - seedStart) / 1000;

  const dataset = await call(app, key, 'POST', '/datasets', { name: 'Factors' });
  await call(app, key, 'POST', '/dataset-items', {
    datasetId: dataset.id,
    name: 'Grid',
    year: 2025,
    data: { key: 'grid', value: 0.4, unit: 'kgCO2e' },
    inputUnitId: kwh,
  });
  const el = (i: number) => ({ type: 'formElement', value: elementIds[i % ELEMENTS] });
  const op = (value: string) => ({ type: 'operator', value });
  const grid = { type: 'datasetItem', value: 'grid', metadata: { datasetId: dataset.id } };
  // 10 indicators at the root: (a + b) × grid / headcount-like (LAST) element; 20 + 10 elements.
  const measured: string[] = [];
  for (let k = 0; k < 10; k++) {
    const created = await call(app, key, 'POST', '/indicators', {
      name: `Root ${k}`,
      expressionParts: [
        { type: 'parenthesis', value: '(' },
        el(k),
        op('+'),
        el(k + 10),
        { type: 'parenthesis', value: ')' },
        op('*'),
        grid,
        op('/'),
        el(10 * k + 9),
      ],
    });
    measured.push(created.id);
  }
  const body = { indicatorIds: measured, siteIds: [root.id], year: 2025 };
  const check = await call(app, key, 'POST', '/indicators/current-values', body);
  if (Object.values(check.results).some((r) => (r as { value: unknown }).value === null))
    throw new Error('a value is null');
  const values = await timed(() => call(app, key, 'POST', '/indicators/current-values', body));
  // The aggregate statement alone (all 30 elements of the 10 indicators), inside a tenant transaction.
  const sites = await database.tenant(orgId, async (tx) =>
    (await sql<{ id: string }>`select id from sites where organization_id = ${orgId}`.execute(tx)).rows.map(
      (r) => r.id,
    ),
  );
  const used = [...Array(10).keys()].flatMap((k) => [k, k + 10, 10 * k + 9]).map((i) => elementIds[i % ELEMENTS]!);
  const lastIds = used.filter((_, i) => i % 3 === 2);
  const scope = {
    siteIds: sites,
    fromYear: 2025,
    toYear: 2025,
    periodUnits: null,
    statuses: ['COMPLETED', 'APPROVED'] as ('COMPLETED' | 'APPROVED')[],
  };
  const aggregate = await timed(() =>
    database.tenant(orgId, (tx) => valuesRepository.elements(tx, orgId, used, lastIds, scope)),
  );
  if (process.env['EXPLAIN']) {
    const plan = await database.system(async (tx) => {
      const result = await sql<{ 'QUERY PLAN': string }>`explain (analyze, buffers)
        with per_site as (
          select v.element_id, fs.site_id, sum(v.numeric_value) as s, avg(v.numeric_value) as a, count(*) as n,
                 (max(array[(fs.year * 16 + v.period_unit)::float8, v.numeric_value])
                    filter (where v.element_id = any(${lastIds}::uuid[])))[2] as l
            from form_element_submissions v
            join form_submissions sub on sub.organization_id = v.organization_id and sub.id = v.form_submission_id
            join form_sites fs on fs.organization_id = sub.organization_id and fs.id = sub.form_site_id
           where v.organization_id = ${orgId} and v.element_id = any(${used}::uuid[])
             and v.deleted_at is null and v.numeric_value is not null
             and v.status = any(${scope.statuses}::text[]) and fs.active and fs.year between 2025 and 2025
             and fs.site_id = any(${sites}::uuid[])
           group by v.element_id, fs.site_id)
        select element_id, sum(s), sum(l), sum(a), sum(n)::int, count(*)::int from per_site group by element_id`.execute(tx);
      return result.rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    console.error(plan);
  }
  const q1 = await timed(() =>
    call(app, key, 'POST', '/indicators/current-values', {
      ...body,
      periodUnits: [1, 2, 3],
      statuses: ['APPROVED'],
    }),
  );

  // 500 indicators: every fifth uses the previous one, most use the grid factor.
  const all = [...measured];
  for (let i = all.length; i < INDICATORS; i++) {
    const parts =
      i % 5 === 0
        ? [{ type: 'indicator', value: all[i - 1] }, op('*'), { type: 'number', value: '2' }]
        : [el(i), op('*'), grid];
    all.push(
      (await call(app, key, 'POST', '/indicators', { name: `Indicator ${i}`, expressionParts: parts })).id,
    );
  }
  const list = await timed(() => call(app, key, 'GET', '/indicators'));

  const values_ = SITES * ELEMENTS * MONTHS;
  const fmt = (t: number[]) =>
    `${median(t).toFixed(0)} | ${Math.min(...t).toFixed(0)} | ${Math.max(...t).toFixed(0)}`;
  rows.push(
    `| ${engine} | current values, 10 indicators, root (${SITES + 11} sites), 2025 | ${values_} | ${fmt(values)} |`,
  );
  rows.push(`| ${engine} | of which the one aggregate statement | ${values_} | ${fmt(aggregate)} |`);
  rows.push(`| ${engine} | same, Q1 and APPROVED only | ${values_} | ${fmt(q1)} |`);
  rows.push(`| ${engine} | GET /indicators (${INDICATORS} indicators) | ${values_} | ${fmt(list)} |`);
  console.error(`${engine}: seeded ${values_} values in ${seedSeconds.toFixed(1)} s`);
  await app.close();
  await drop();
}

console.log(`\nIndicators (median of ${RUNS} after a warm-up), app.inject\n`);
console.log('| engine | operation | stored values | median ms | min ms | max ms |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
