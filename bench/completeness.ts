// Completeness: GET /api/v1/completeness over a monthly form active on 1,000 sites for a year
// (1,000 × 12 periods; two NUMBER and one ACTIVITY element required; values, activities and
// no-activity markers seeded in SQL with a mix of complete, partial and missing periods), through
// app.inject, on each engine. Goal: under 300 ms on PostgreSQL.
// Each call is measured with its totals read from the kept counts (migration 0035, what the service
// does) and counted from the values (the direct computation, `completenessSource` off).
// `npm run bench -- completeness`   (SITES=200 for a quick run; SITES=1000,10000 runs both sizes
// and prints each call's ratio of the largest size to the smallest: what grows with the data)
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { completenessSource } from '../src/modules/completeness/completeness.kept.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { engines, freshDatabase, median } from './lib.ts';

const SIZES = (process.env['SITES'] ?? '1000').split(',').map(Number);
const RUNS = Number(process.env['RUNS'] ?? 10);

const rows: string[] = [];
/** Medians by `engine | call | totals`, then by size. */
const medians = new Map<string, Map<number, number>>();
for (const SITES of SIZES)
  for (const engine of engines().filter(
    (e) => !process.env['BENCH_ENGINE'] || e === process.env['BENCH_ENGINE'],
  )) {
    const { database, config, drop } = await freshDatabase(engine);
    const app = await buildApp({ database, config, clock: () => new Date('2024-09-01T00:00:00Z') });
    await app.ready();
    const created = await createOrganizationWithKey(database, {
      organizationName: 'Bench',
      email: 'bench@example.com',
      name: 'Bench',
      password: null,
    });
    const org = created!.organization.id;
    const user = created!.user.id;
    const key = created!.apiKey;
    const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const res = await app.inject({
        method,
        url: `/api/v1${url}`,
        headers: { authorization: `Bearer ${key}` },
        ...(payload ? { payload } : {}),
      });
      if (res.statusCode !== 200)
        throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      return res.json();
    };

    const seedStart = performance.now();
    const definition = await database.system(async (tx) => {
      const r = await sql<{ id: string }>`
      insert into activity_definitions (organization_id, key, name, ui_code, calc_code, inputs)
      values (${org}, 'waste', 'Waste', '', 'return inputs.amount', ${JSON.stringify([
        { name: 'amount', type: 'number', required: true, exportName: 'amount' },
      ])}::jsonb) returning id`.execute(tx);
      return r.rows[0]!.id;
    });
    const form = await call('POST', '/forms', {
      name: 'Monthly',
      periodType: 'MONTHLY',
      dueDays: 15,
      elements: [
        { key: 'energy', label: 'Energy', type: 'NUMBER', required: true },
        { key: 'water', label: 'Water', type: 'NUMBER', required: true },
        { key: 'waste', label: 'Waste', type: 'ACTIVITY', activityDefinitionId: definition, required: true },
        { key: 'note', label: 'Note', type: 'TEXT' },
      ],
    });
    const el = Object.fromEntries(form.elements.map((e: { key: string; id: string }) => [e.key, e.id]));
    await database.system(async (tx) => {
      await sql`insert into sites (organization_id, name)
              select ${org}, 'Site ' || lpad(n::text, 5, '0') from generate_series(1, ${SITES}) n`.execute(
        tx,
      );
      await sql`insert into form_sites (organization_id, form_id, site_id, year)
              select ${org}, ${form.id}, id, 2024 from sites where organization_id = ${org}`.execute(tx);
      await sql`insert into form_submissions (organization_id, form_site_id, user_id)
              select ${org}, id, ${user} from form_sites where organization_id = ${org}`.execute(tx);
      // The site's number n decides what it reported for period p.
      await sql`
      with cells as (
        select sub.id as submission_id, fs.id as form_site_id, fs.site_id,
               substring(s.name from 6)::int as n, p
          from form_submissions sub
          join form_sites fs on fs.id = sub.form_site_id
          join sites s on s.id = fs.site_id
         cross join generate_series(1, 12) p
         where sub.organization_id = ${org}
      )
      insert into form_element_submissions
        (organization_id, form_submission_id, element_id, period_unit, value, numeric_value, user_id, recorded_at, created_at)
      select ${org}::uuid, submission_id, e.id, p, to_jsonb(n * p), n * p, ${user}::uuid,
             make_timestamptz(2024, least(p + 1, 12), 1 + (n % 28), 0, 0, 0, 'UTC'),
             make_timestamptz(2024, least(p + 1, 12), 1 + (n % 28), 0, 0, 0, 'UTC')
        from cells
        join (values (${el.energy}::uuid, 10), (${el.water}::uuid, 7)) as e(id, m) on (n + p) % e.m <> 0
       union all
      select ${org}::uuid, submission_id, ${el.waste}::uuid, p, '[{"amount": 1}]'::jsonb, 1, ${user}::uuid,
             make_timestamptz(2024, least(p + 1, 12), 1 + (n % 28), 0, 0, 0, 'UTC'),
             make_timestamptz(2024, least(p + 1, 12), 1 + (n % 28), 0, 0, 0, 'UTC')
        from cells where (n + p) % 5 <> 0`.execute(tx);
      // Statistics for the joins below (without them their plans loop over the tables).
      await sql`analyze`.execute(tx);
      await sql`
      insert into activities (organization_id, form_element_submission_id, element_id, activity_definition_id,
                              form_site_id, site_id, year, period_unit, position, input, value, user_id,
                              created_at, updated_at)
      select ${org}, v.id, v.element_id, ${definition}, sub.form_site_id, fs.site_id, 2024, v.period_unit, 0,
             '{"amount": 1}'::jsonb, 1, ${user}, v.created_at, v.created_at
        from form_element_submissions v
        join form_submissions sub on sub.id = v.form_submission_id
        join form_sites fs on fs.id = sub.form_site_id
       where v.organization_id = ${org} and v.element_id = ${el.waste}`.execute(tx);
      await sql`
      insert into no_activity_markers (organization_id, form_id, element_id, site_id, year, period_unit, created_by)
      select ${org}, ${form.id}, ${el.waste}, fs.site_id, 2024, p, ${user}
        from form_sites fs join sites s on s.id = fs.site_id
       cross join generate_series(1, 12) p
       where fs.organization_id = ${org} and (substring(s.name from 6)::int + p) % 5 = 0
         and substring(s.name from 6)::int % 3 = 0`.execute(tx);
      await sql`analyze`.execute(tx);
    });
    const seedMs = performance.now() - seedStart;

    for (const [label, query] of [
      ['first page (100 sites) + totals', `formId=${form.id}&year=2024`],
      ['all sites (limit 1000) + totals', `formId=${form.id}&year=2024&limit=1000`],
      ['one month, first page + totals', `formId=${form.id}&year=2024&periodUnits=3`],
    ] as const) {
      const answers: string[] = [];
      for (const kept of [true, false]) {
        completenessSource.enabled = kept;
        await call('GET', `/completeness?${query}`);
        const times: number[] = [];
        let totals: Record<string, number> = {};
        for (let i = 0; i < RUNS; i++) {
          const start = performance.now();
          const body = await call('GET', `/completeness?${query}`);
          times.push(performance.now() - start);
          totals = body.totals;
        }
        answers.push(JSON.stringify(totals));
        const source = kept ? 'kept' : 'counted';
        rows.push(
          `| ${SITES} | ${engine} | ${label} | ${source} | ${median(times).toFixed(0)} | ${Math.min(...times).toFixed(0)} | ${Math.max(...times).toFixed(0)} | ${totals['expectedReports']} | ${totals['rate']}% / ${totals['onTimeRate']}% |`,
        );
        const name = `${engine} | ${label} | ${source}`;
        medians.set(name, (medians.get(name) ?? new Map()).set(SITES, median(times)));
      }
      completenessSource.enabled = true;
      if (answers[0] !== answers[1])
        throw new Error(`kept and counted totals differ: ${answers.join(' vs ')}`);
    }
    const remind = performance.now();
    const reminded = await call('POST', '/completeness/reminders', {
      formId: form.id,
      year: 2024,
      periodUnit: 3,
    });
    rows.push(
      `| ${SITES} | ${engine} | reminders for March (${reminded.sites} open sites, no collectors) | | ${(performance.now() - remind).toFixed(0)} | | | | |`,
    );
    console.error(`${engine}: seeded ${SITES} sites in ${(seedMs / 1000).toFixed(1)} s`);
    await app.close();
    await drop();
  }

console.log(`\nCompleteness: ${SIZES.join(', ')} sites × 12 periods, ${RUNS} runs each, app.inject\n`);
console.log(
  '| sites | engine | call | totals | median ms | min ms | max ms | expectedReports | rate / onTimeRate |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
if (SIZES.length > 1) {
  const [small, large] = [Math.min(...SIZES), Math.max(...SIZES)];
  console.log(`\nRatio of the median at ${large} sites to the median at ${small} sites:\n`);
  for (const [name, bySize] of medians)
    console.log(`| ${name} | ${(bySize.get(large)! / bySize.get(small)!).toFixed(2)}× |`);
}
