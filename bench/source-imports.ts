// POST /api/v1/source-imports through app.inject, on each engine: 10,000 form-value rows (10 sites
// by code x 12 months x 84 NUMBER elements named by a column, half in MWh) and 10,000 activity rows
// (10 sites x 12 months, ~84 refuels per site and month; calcCode `inputs.litres * 2.68`), each
// previewed and then executed. Beside them, in the same run: a bare multi-row INSERT of the same
// 10,000 values (1,000 rows per statement) into a scratch table, the floor any import can reach.
// `npm run bench -- source-imports`   (ROWS=2000 for a smaller run; BENCH_ENGINE=postgres or pglite for one)
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { shutdownSandbox } from '../src/sandbox/index.ts';
import { call as callApi, engines, freshDatabase, median } from './lib.ts';

const ROWS = Number(process.env['ROWS'] ?? 10_000);
const SITES = 10;
const ELEMENTS = Math.ceil(ROWS / (SITES * 12));

type App = Awaited<ReturnType<typeof buildApp>>;
let keyCounter = 0;

const call = (app: App, key: string, method: 'POST' | 'PUT', url: string, payload: object) =>
  callApi(app, key, method, url, payload, { 'idempotency-key': `bench-${++keyCounter}` });

const out: string[] = [];
const only = process.env['BENCH_ENGINE'];
for (const engine of engines().filter((e) => !only || e === only)) {
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
  const units = new Map(
    (
      await database.system((tx) =>
        tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
      )
    ).map((u) => [u.symbol, u.id]),
  );
  const siteIds: string[] = [];
  for (let s = 0; s < SITES; s++)
    siteIds.push((await call(app, key, 'POST', '/sites', { name: `Site ${s}`, code: `S${s}` })).id);
  const def = await call(app, key, 'POST', '/activity-definitions', {
    name: 'Fuel',
    key: 'fuel',
    uiCode: '',
    inputs: [{ name: 'litres', type: 'number', required: true }],
    calcCode: 'return inputs.litres * 2.68;',
  });
  const form = await call(app, key, 'POST', '/forms', {
    name: 'Energy',
    periodType: 'MONTHLY',
    elements: [
      ...Array.from({ length: ELEMENTS }, (_, i) => ({
        key: `e${i}`,
        label: `E${i}`,
        type: 'NUMBER',
        unitId: units.get('kWh'),
      })),
      { key: 'fuel', label: 'Fuel', type: 'ACTIVITY', activityDefinitionId: def.id },
    ],
  });
  // Each execute writes into an empty year: the preview and the executes read the same rows.
  const YEARS = [2025, 2026, 2027];
  await call(app, key, 'PUT', '/form-sites', { formId: form.id, siteIds, years: YEARS });
  const adapter = await call(app, key, 'POST', '/source-adapter-definitions', {
    name: 'bench',
    mapping: {
      sheets: [
        {
          sheet: 'Values',
          draft: 'form_value',
          form: { id: form.id },
          site: { column: 'Site', match: 'code' },
          period: { column: 'Month' },
          element: { column: 'Metric' },
          value: { column: 'Amount' },
          unit: { column: 'Unit' },
        },
        {
          sheet: 'Fuel',
          draft: 'activity',
          form: { id: form.id },
          site: { column: 'Site', match: 'code' },
          period: { column: 'Month' },
          activity: { key: 'fuel' },
          inputs: { litres: { column: 'Litres' } },
        },
      ],
    },
  });
  const valueRows = Array.from({ length: ROWS }, (_, n) => ({
    Site: `S${n % SITES}`,
    Month: (Math.floor(n / SITES) % 12) + 1,
    Metric: `e${Math.floor(n / (SITES * 12))}`,
    Amount: n % 2 ? n / 10 : String(n / 1000),
    Unit: n % 2 ? 'kWh' : 'MWh',
  }));
  const fuelRows = Array.from({ length: ROWS }, (_, n) => ({
    Site: `S${n % SITES}`,
    Month: (Math.floor(n / SITES) % 12) + 1,
    Litres: n % 500,
  }));
  const body = (name: string, rows: object[], mode: string, year = 2025) => ({
    sourceAdapterDefinitionId: adapter.id,
    adapterVersion: adapter.adapterVersion,
    mode,
    context: { year },
    sheets: [{ name, rows }],
  });

  /** Runs each of `runs` once (each into its own year), and records the median time, min-max. */
  const time = async (
    label: string,
    runs: (() => Promise<{ counts: { ready: number; imported: number } }>)[],
    perSecond?: string,
  ) => {
    const times: number[] = [];
    let res!: { counts: { ready: number; imported: number } };
    for (const run of runs) {
      const t0 = performance.now();
      res = await run();
      times.push((performance.now() - t0) / 1000);
    }
    const s = median(times);
    const spread =
      times.length > 1 ? ` (${Math.min(...times).toFixed(2)}-${Math.max(...times).toFixed(2)})` : '';
    const rate = perSecond ? ` | ${(res.counts.ready / s).toFixed(0)} ${perSecond}/s` : ' |';
    out.push(
      `| ${engine} | ${label} | ${s.toFixed(2)}${spread} | ${res.counts.ready} | ${res.counts.imported}${rate} |`,
    );
    return s;
  };
  await time('form values, preview', [
    () => call(app, key, 'POST', '/source-imports', body('Values', valueRows, 'preview')),
  ]);
  const valuesExecute = await time(
    `form values, execute (median of ${YEARS.length}, each into an empty year)`,
    YEARS.map(
      (year) => () => call(app, key, 'POST', '/source-imports', body('Values', valueRows, 'execute', year)),
    ),
  );
  await time(
    'activities, preview (calculated)',
    [() => call(app, key, 'POST', '/source-imports', body('Fuel', fuelRows, 'preview'))],
    'calculations',
  );
  await time(
    'activities, execute',
    [() => call(app, key, 'POST', '/source-imports', body('Fuel', fuelRows, 'execute'))],
    'activities',
  );

  // The floor: the same number of rows in multi-row INSERTs of 1,000, in one transaction, into a
  // table with a primary key and nothing else (durable, as the import's tables are; a temporary
  // table, which writes no WAL, was the floor before 2026-11-24).
  const bare = await database.system(async (tx) => {
    await sql`create table bench_values (id uuid primary key default gen_random_uuid(), element text, site text, period int, value double precision, original jsonb)`.execute(
      tx,
    );
    const t0 = performance.now();
    for (let i = 0; i < ROWS; i += 1000) {
      const part = valueRows.slice(i, i + 1000);
      await sql`insert into bench_values (element, site, period, value, original)
        select * from jsonb_to_recordset(${JSON.stringify(part.map((r) => ({ element: r.Metric, site: r.Site, period: r.Month, value: Number(r.Amount), original: { v: r.Amount } })))}::jsonb)
        as x(element text, site text, period int, value double precision, original jsonb)`.execute(tx);
    }
    const elapsed = (performance.now() - t0) / 1000;
    await sql`drop table bench_values`.execute(tx);
    return elapsed;
  });
  out.push(
    `| ${engine} | bare multi-row INSERT of the same rows | ${bare.toFixed(2)} | ${ROWS} | ${ROWS} | execute at ${((bare / valuesExecute) * 100).toFixed(0)}% of its speed |`,
  );
  await app.close();
  await drop();
}
await shutdownSandbox();

console.log(`Source imports: ${ROWS} rows per import, app.inject`);
console.log('| engine | import | s | ready | imported | rate |');
console.log('|---|---|---|---|---|---|');
for (const row of out) console.log(row);
