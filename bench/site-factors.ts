// Site-dependent coefficients (issue 24 item 1): POST /indicators/current-values for 10
// indicators `(a + b) × grid_{site.metadata.country}` at the root of SITES plants in 10 regions
// (the regions carry the country, three countries), against the same 10 indicators with one
// factor `(a + b) × grid_FR`, and the 12-month series of both, on each engine, through
// app.inject. SITES × 12 months × 80 NUMBER elements of stored values (SITES=1000: 960,000).
// `npm run bench -- site-factors` (ENGINES=postgres for one engine).
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { indicatorSeries } from '../src/modules/indicators/indicators.series.ts';
import { call, energyOrganization, engines, freshDatabase, median, seedEnergyValues } from './lib.ts';

const SITES = Number(process.env['SITES'] ?? 1000);
const ELEMENTS = 80;
const MONTHS = 12;
const RUNS = Number(process.env['RUNS'] ?? 9);

/** Both variants timed in turn (a, b, a, b, …) after a warm-up each, so that load drift hits both. */
async function timedPair(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<[number[], number[]]> {
  await a();
  await b();
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const [fn, out] of [
      [a, ta],
      [b, tb],
    ] as const) {
      const start = performance.now();
      await fn();
      out.push(performance.now() - start);
    }
  }
  return [ta, tb];
}

const rows: string[] = [];
const only = process.env['ENGINES']?.split(',');
for (const engine of engines().filter((e) => !only || only.includes(e))) {
  const { database, config, drop } = await freshDatabase(engine);
  const app = await buildApp({ database, config });
  await app.ready();
  const org = await energyOrganization(database, app, ELEMENTS);
  const { key, orgId, rootId, elementIds, unitIds } = org;
  const kg = unitIds.get('kgCO2e')!;

  const seedStart = performance.now();
  // Ten regions under the root with a country each (FR, DE, PL in turn); plants inherit it.
  await seedEnergyValues(database, org, SITES, MONTHS, {
    regionMetadata: (r) => ({ country: ['FR', 'DE', 'PL'][r % 3] }),
  });
  await database.execScript('vacuum analyze');
  const seedSeconds = (performance.now() - seedStart) / 1000;

  const dataset = await call(app, key, 'POST', '/datasets', { name: 'Grid factors' });
  for (const [country, value] of [
    ['FR', 0.05],
    ['DE', 0.38],
    ['PL', 0.7],
  ] as const)
    await call(app, key, 'POST', '/dataset-items', {
      datasetId: dataset.id,
      name: `Grid ${country}`,
      year: 2025,
      data: { key: `grid_${country}`, value, unit: 'kgCO2e' },
      inputUnitId: unitIds.get('kWh'),
    });
  const el = (i: number) => ({ type: 'formElement', value: elementIds[i % ELEMENTS] });
  const op = (value: string) => ({ type: 'operator', value });
  const factor = (k: string) => ({ type: 'datasetItem', value: k, metadata: { datasetId: dataset.id } });
  const make = async (name: string, k: string) => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await call(app, key, 'POST', '/indicators', {
        name: `${name} ${i}`,
        unitId: kg,
        expressionParts: [
          { type: 'parenthesis', value: '(' },
          el(i),
          op('+'),
          el(i + 10),
          { type: 'parenthesis', value: ')' },
          op('*'),
          factor(k),
        ],
      });
      if (!created.id) throw new Error(JSON.stringify(created));
      ids.push(created.id);
    }
    return ids;
  };
  const single = await make('One factor', 'grid_FR');
  const perSite = await make('Per site', 'grid_{site.metadata.country}');
  const current = (ids: string[]) => async () => {
    const answer = await call(app, key, 'POST', '/indicators/current-values', {
      indicatorIds: ids,
      siteIds: [rootId],
      year: 2025,
    });
    for (const r of Object.values(answer.results) as { value: number | null; issues: unknown[] }[])
      if (r.value === null || r.issues.length > 0) throw new Error(JSON.stringify(r));
  };
  const series = (ids: string[]) => () =>
    database.tenant(orgId, (tx) =>
      indicatorSeries(
        tx,
        { organizationId: orgId },
        { indicatorIds: ids, siteIds: [rootId], fromYear: 2025, toYear: 2025, grouping: 'MONTHLY' },
        new Date(),
      ),
    );
  // In turn, so that a change of machine load hits both alike.
  const [oneCurrent, siteCurrent] = await timedPair(current(single), current(perSite));
  const [oneSeries, siteSeries] = await timedPair(series(single), series(perSite));

  const values_ = SITES * ELEMENTS * MONTHS;
  const fmt = (t: number[]) =>
    `${median(t).toFixed(0)} | ${Math.min(...t).toFixed(0)} | ${Math.max(...t).toFixed(0)}`;
  const ratio = (a: number[], b: number[]) => (median(a) / median(b)).toFixed(2);
  rows.push(
    `| ${engine} | current values, 10 indicators, one factor | ${values_} | ${fmt(oneCurrent)} | 1 |`,
  );
  rows.push(
    `| ${engine} | current values, 10 indicators, factor per site | ${values_} | ${fmt(siteCurrent)} | ${ratio(siteCurrent, oneCurrent)} |`,
  );
  rows.push(`| ${engine} | series × 12 months, one factor | ${values_} | ${fmt(oneSeries)} | 1 |`);
  rows.push(
    `| ${engine} | series × 12 months, factor per site | ${values_} | ${fmt(siteSeries)} | ${ratio(siteSeries, oneSeries)} |`,
  );
  console.error(`${engine}: seeded ${values_} values in ${seedSeconds.toFixed(1)} s`);
  await app.close();
  await drop();
}

console.log(
  `\nSite-dependent factors (median of ${RUNS}, the two variants in turn, after a warm-up), app.inject\n`,
);
console.log('| engine | operation | stored values | median ms | min ms | max ms | × one factor |');
console.log('|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
