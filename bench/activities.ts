// Activities: POST /api/v1/form-submissions of one ACTIVITY value holding 500 fuel purchases,
// and POST /api/v1/activity-definitions/{id}/recalculate over 10,000 activities, through
// app.inject, on each engine. The calcCode is realistic: a factor chosen by fuel type through an
// awaited context.coefficient lookup (answered from a coefficient dataset), metadata returned.
// `npm run bench -- activities`
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { shutdownSandbox } from '../src/sandbox/index.ts';
import { call, engines, freshDatabase, median } from './lib.ts';

const PER_SUBMISSION = 500;
const SUBMISSION_RUNS = 5;
/** 10,000 activities: 20 (year, month) values of 500. */
const RECALC_YEARS = [2024, 2025];
const RECALC_MONTHS = 10;
const RECALC_RUNS = 3;
const FUELS = ['diesel', 'petrol', 'lpg', 'heating-oil'];

const calcCode = (scale: number) =>
  [
    'const c = await context.coefficient(inputs.fuelType);',
    "if (!c) throw new Error('no factor for ' + inputs.fuelType);",
    `return { value: inputs.litres * c.value * ${scale}, metadata: { factor: c.value, unit: c.unit } };`,
  ].join('\n');

const purchases = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => ({
    fuelType: FUELS[(i + seed) % FUELS.length],
    litres: 10 + ((i * 7 + seed) % 500),
  }));

const rows: string[] = [];
for (const engine of engines()) {
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
  const site = await call(app, key, 'POST', '/sites', { name: 'Plant' });
  const dataset = await call(app, key, 'POST', '/datasets', { name: 'Fuel factors', isCommon: false });
  for (const year of [2023, ...RECALC_YEARS]) {
    for (const [i, fuel] of FUELS.entries()) {
      await call(app, key, 'POST', '/dataset-items', {
        datasetId: dataset.id,
        name: `${fuel} ${year}`,
        year,
        data: { key: fuel, value: 2 + i / 10 + (year - 2023) / 100, unit: 'kgCO2e' },
      });
    }
  }
  const definitionBody = (scale: number) => ({
    name: 'Fuel combustion',
    uiCode: '',
    calcCode: calcCode(scale),
    inputs: [
      {
        name: 'fuelType',
        type: 'string',
        required: true,
        editor: { type: 'select', options: FUELS.map((f) => ({ label: f, value: f })) },
      },
      { name: 'litres', type: 'number', required: true },
    ],
    metadataSchema: { type: 'object', properties: { factor: { type: 'number' }, unit: { type: 'string' } } },
  });
  // One definition and element for the submission runs, another whose 10,000 activities are recalculated.
  const definitions = [
    await call(app, key, 'POST', '/activity-definitions', definitionBody(1)),
    await call(app, key, 'POST', '/activity-definitions', definitionBody(1)),
  ];
  const form = await call(app, key, 'POST', '/forms', {
    name: 'Fuel',
    periodType: 'MONTHLY',
    elements: definitions.map((d, i) => ({
      key: `fuel${i}`,
      label: `Fuel ${i}`,
      type: 'ACTIVITY',
      activityDefinitionId: d.id,
    })),
  });
  await call(app, key, 'PUT', '/form-sites', {
    formId: form.id,
    siteIds: [site.id],
    years: [2023, ...RECALC_YEARS],
  });
  const submit = (element: number, year: number, month: number, seed: number, n = PER_SUBMISSION) =>
    call(app, key, 'POST', '/form-submissions', {
      formId: form.id,
      siteId: site.id,
      year,
      values: [{ elementKey: `fuel${element}`, periodUnit: month, value: purchases(n, seed) }],
    });
  // Warm up: the sandbox worker and the first runner.
  await submit(0, 2023, 12, 0, 10);

  const timed = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  const created: number[] = [];
  const replaced: number[] = [];
  for (let run = 1; run <= SUBMISSION_RUNS; run++) {
    created.push(await timed(() => submit(0, 2023, run, run)));
    replaced.push(await timed(() => submit(0, 2023, run, run + 1)));
  }
  rows.push(
    `| ${engine} | submit ${PER_SUBMISSION} new activities | ${median(created).toFixed(0)} | ${Math.min(...created).toFixed(0)} | ${Math.max(...created).toFixed(0)} | ${((PER_SUBMISSION * 1000) / median(created)).toFixed(0)} |`,
  );
  rows.push(
    `| ${engine} | submit ${PER_SUBMISSION} changed activities | ${median(replaced).toFixed(0)} | ${Math.min(...replaced).toFixed(0)} | ${Math.max(...replaced).toFixed(0)} | ${((PER_SUBMISSION * 1000) / median(replaced)).toFixed(0)} |`,
  );

  for (const year of RECALC_YEARS) {
    for (let month = 1; month <= RECALC_MONTHS; month++) await submit(1, year, month, month);
  }
  const total = RECALC_YEARS.length * RECALC_MONTHS * PER_SUBMISSION;
  const recalcs: number[] = [];
  for (let run = 1; run <= RECALC_RUNS; run++) {
    await call(app, key, 'PUT', `/activity-definitions/${definitions[1].id}`, definitionBody(1 + run / 10));
    let result: { recalculated: number; changed: number; failed: number } | undefined;
    recalcs.push(
      await timed(async () => {
        result = await call(app, key, 'POST', `/activity-definitions/${definitions[1].id}/recalculate`);
      }),
    );
    if (result!.recalculated !== total || result!.changed !== total || result!.failed !== 0) {
      throw new Error(`unexpected recalculation: ${JSON.stringify(result)}`);
    }
  }
  rows.push(
    `| ${engine} | recalculate ${total} activities | ${median(recalcs).toFixed(0)} | ${Math.min(...recalcs).toFixed(0)} | ${Math.max(...recalcs).toFixed(0)} | ${((total * 1000) / median(recalcs)).toFixed(0)} |`,
  );
  await app.close();
  await drop();
}
await shutdownSandbox();

console.log('Activities: fuel purchases calculated with a coefficient lookup each, app.inject');
console.log('| engine | operation | median ms | min ms | max ms | activities/s |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
