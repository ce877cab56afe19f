// POST /api/v1/form-submissions one request at a time (app.inject), on a fresh database whose
// statistics are those of small tables: 120 submissions of 50 values (one month of 50 elements)
// and 120 of 500 (50 elements x 10 months), spread over 90 (site, year), so the values table
// grows to about 45,000 rows during the run. Median of the last 100 of each. A write's cost must
// not grow with the rows around it, also before autovacuum (or the embedded upkeep) has analyzed
// the grown tables: the plan of every statement and check must stay a probe by key.
// `npm run bench -- submit-latency`   (DATABASE_URL for PostgreSQL too; BENCH_ENGINE for one)
// WARN_FACTOR=3: every element has that warnChangeFactor, so each submission reads its outliers'
// references (issue 42).
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { shutdownSandbox } from '../src/sandbox/index.ts';
import { call, engines, freshDatabase, median } from './lib.ts';

const rows: string[] = [];
// COUNTS=50 (or 500): one of the two submission sizes only.
const counts = (process.env['COUNTS'] ?? '50,500').split(',').map(Number);
const only = process.env['BENCH_ENGINE'];
for (const engine of engines().filter((e) => !only || e === only)) {
  const { database, config, drop } = await freshDatabase(engine);
  const app = await buildApp({ database, config });
  const org = (await createOrganizationWithKey(database, {
    organizationName: 'Bench',
    email: 'bench@example.com',
    name: 'Bench',
    password: null,
  }))!;
  const key = org.apiKey;
  const sites: { id: string }[] = [];
  for (let i = 0; i < 10; i++) sites.push(await call(app, key, 'POST', '/sites', { name: `Plant ${i}` }));
  const years = Array.from({ length: 9 }, (_, i) => 2016 + i);
  const form = await call(app, key, 'POST', '/forms', {
    name: 'Monthly',
    periodType: 'MONTHLY',
    elements: Array.from({ length: 50 }, (_, i) => ({
      key: `n${i}`,
      label: `Number ${i}`,
      type: 'NUMBER',
      ...(process.env['WARN_FACTOR'] ? { warnChangeFactor: Number(process.env['WARN_FACTOR']) } : {}),
    })),
  });
  await call(app, key, 'PUT', '/form-sites', { formId: form.id, siteIds: sites.map((s) => s.id), years });
  for (const count of counts) {
    const times: number[] = [];
    for (let i = 0; i < 120; i++) {
      const payload = {
        formId: form.id,
        siteId: sites[i % 10]!.id,
        year: years[i % 9],
        values: Array.from({ length: count }, (_, j) => ({
          elementKey: `n${j % 50}`,
          periodUnit: count === 50 ? 1 + (i % 12) : 1 + Math.floor(j / 50),
          value: Math.round(Math.random() * 1e6) / 100,
        })),
      };
      const t0 = performance.now();
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/form-submissions',
        headers: { authorization: `Bearer ${key}` },
        payload,
      });
      if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body.slice(0, 300)}`);
      if (i >= 20) times.push(performance.now() - t0);
    }
    const ms = median(times);
    rows.push(
      `| ${engine} | ${count} values | ${ms.toFixed(1)} | ${Math.min(...times).toFixed(1)}-${Math.max(...times).toFixed(1)} | ${((ms * 1000) / count).toFixed(0)} |`,
    );
  }
  await app.close();
  await drop();
}
await shutdownSandbox();
console.log('POST /form-submissions one at a time on a fresh database (median of 100)');
console.log('| engine | submission | median ms | min-max ms | µs per value |');
console.log('|---|---|---|---|---|');
for (const row of rows) console.log(row);
