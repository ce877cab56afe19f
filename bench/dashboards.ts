// Dashboards: a dashboard of 4 widgets over the values of SITES plants (12 months × 80 NUMBER
// elements each, as the indicators benchmark seeds them), every widget of the same 10 indicators
// `(a + b) × grid / h` (h a LAST element): a VALUE (current values), a 12-month LINE, a yearly BAR
// per child site of the root (CHILDREN: the 10 regions) and a MONTHLY TABLE. Read as a member
// (GET /dashboards/{id}/data) and through its public link (GET /public/dashboards/{id}, the
// public cache emptied before each read), with the pre-aggregated totals and statistics and,
// as the baseline of the same run, the direct computation from the values.
// `npm run bench -- dashboards` (SITES=1000 by default: 960,000 values; ENGINES=postgres).
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { forgetPublicViews } from '../src/modules/dashboards/dashboards.cache.ts';
import { totalsSource } from '../src/modules/indicators/indicators.scope.ts';
import {
  call,
  energyOrganization,
  engines,
  freshDatabase,
  median,
  rootIndicators,
  seedEnergyValues,
} from './lib.ts';

const SITES = Number(process.env['SITES'] ?? 1000);
const ELEMENTS = 80;
const MONTHS = 12;
const RUNS = 5;

const rows: string[] = [];
const only = process.env['ENGINES']?.split(',');
for (const engine of engines().filter((e) => !only || only.includes(e))) {
  const { database, config, drop } = await freshDatabase(engine);
  const app = await buildApp({ database, config });
  await app.ready();
  const org = await energyOrganization(database, app, ELEMENTS, (i) => (i % 10 === 9 ? 'LAST' : 'SUM'));
  const { key } = org;
  const seedStart = performance.now();
  await seedEnergyValues(database, org, SITES, MONTHS);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  console.error(`${engine}: seeded ${SITES * ELEMENTS * MONTHS} values in ${seedSeconds.toFixed(1)} s`);

  const { indicatorIds } = await rootIndicators(app, org);
  const dashboard = await call(app, key, 'POST', '/dashboards', {
    name: 'Energy',
    isPublic: true,
    globalFilter: { startYear: 2025, endYear: 2025 },
  });
  const widgets = [
    { title: 'This year', type: 'VALUE', config: {} },
    { title: 'Per month', type: 'LINE', config: { period: 'MONTHLY', sites: 'TOTAL' } },
    { title: 'Per region', type: 'BAR', config: { period: 'YEARLY', sites: 'CHILDREN' } },
    { title: 'Table', type: 'TABLE', config: { period: 'MONTHLY', sites: 'TOTAL' } },
  ];
  for (const w of widgets)
    await call(app, key, 'POST', `/dashboards/${dashboard.id}/widgets`, { ...w, indicatorIds });

  const member = () => call(app, key, 'GET', `/dashboards/${dashboard.id}/data`);
  const publicLink = async () => {
    forgetPublicViews(dashboard.id);
    const res = await app.inject({ method: 'GET', url: `/api/v1/public/dashboards/${dashboard.id}` });
    if (res.statusCode !== 200)
      throw new Error(`public dashboard: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.json();
  };
  const direct = async <T>(fn: () => Promise<T>): Promise<T> => {
    totalsSource.enabled = false;
    try {
      return await fn();
    } finally {
      totalsSource.enabled = true;
    }
  };
  // The figures are the same either way (as numbers; the direct computation adds doubles).
  const figures = (view: { data: unknown[] }) =>
    JSON.stringify(view.data, (k, v) =>
      k === 'formatted' ? undefined : typeof v === 'number' ? Number(v.toPrecision(10)) : v,
    );
  const fromTotals = await member();
  if (figures(fromTotals) !== figures(await direct(member)))
    throw new Error('the dashboard differs between the aggregates and the direct computation');
  if (figures(await publicLink()) !== figures(fromTotals)) throw new Error('the public dashboard differs');

  const timed = async (fn: () => Promise<unknown>) => {
    await fn(); // warm-up
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const start = performance.now();
      await fn();
      times.push(performance.now() - start);
    }
    return times;
  };
  const results: [string, number[]][] = [
    ['member, aggregates', await timed(member)],
    ['member, direct', await direct(() => timed(member))],
    ['public link, cache cold, aggregates', await timed(publicLink)],
    ['public link, cache cold, direct', await direct(() => timed(publicLink))],
  ];
  const values = SITES * ELEMENTS * MONTHS;
  const fmt = (t: number[]) =>
    `${median(t).toFixed(0)} | ${Math.min(...t).toFixed(0)} | ${Math.max(...t).toFixed(0)}`;
  for (const [label, times] of results)
    rows.push(`| ${engine} | 4 widgets × 10 indicators, ${label} | ${values} | ${fmt(times)} |`);
  await app.close();
  await drop();
}

console.log(`\nDashboards (median of ${RUNS} after a warm-up), app.inject\n`);
console.log('| engine | dashboard read | stored values | median ms | min ms | max ms |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
