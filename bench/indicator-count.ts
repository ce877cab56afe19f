// POST /api/v1/indicators/current-values for one indicator, in an organization of 10 indicators and
// in one of MANY (500 by default) indicators, in the same database and the same run; GET /api/v1/sites
// of the same organizations is the bare baseline. An evaluation reads the indicators asked for and
// those they use, so its cost should not grow with how many indicators the organization has.
// `npm run bench -- indicator-count`   (BENCH_ENGINE=postgres or pglite for one; MANY=2000)
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { shutdownSandbox } from '../src/sandbox/index.ts';
import { call, engines, freshDatabase, median } from './lib.ts';

const MANY = Number(process.env['MANY'] ?? 500);
const ROUNDS = 5;
const CALLS = 40;

type App = Awaited<ReturnType<typeof buildApp>>;

/** An organization with one site, one value and `count` indicators; answers its key and one indicator. */
async function organization(
  app: App,
  database: Parameters<typeof createOrganizationWithKey>[0],
  count: number,
) {
  const org = await createOrganizationWithKey(database, {
    organizationName: `Bench ${count}`,
    email: `bench-${count}@example.com`,
    name: 'Bench',
    password: null,
  });
  const key = org!.apiKey;
  const site = (await call(app, key, 'POST', '/sites', { name: 'Plant' })).id;
  const form = await call(app, key, 'POST', '/forms', {
    name: 'Energy',
    periodType: 'YEARLY',
    elements: [{ key: 'e', label: 'E', type: 'NUMBER' }],
  });
  const element = form.elements[0].id;
  await call(app, key, 'PUT', '/form-sites', { formId: form.id, siteIds: [site], years: [2025] });
  await call(app, key, 'POST', '/form-submissions', {
    formId: form.id,
    siteId: site,
    year: 2025,
    values: [{ elementId: element, periodUnit: 1, value: 5 }],
  });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    // Every fifth uses the one before it, as indicators built on others do.
    const parts =
      i % 5 === 4
        ? [
            { type: 'indicator', value: ids[i - 1] },
            { type: 'operator', value: '*' },
            { type: 'number', value: '2' },
          ]
        : [{ type: 'formElement', value: element }];
    ids.push((await call(app, key, 'POST', '/indicators', { name: `I${i}`, expressionParts: parts })).id);
  }
  // The one asked for uses one other.
  return { key, indicator: ids[4]! };
}

const out: string[] = [];
const only = process.env['BENCH_ENGINE'];
for (const engine of engines().filter((e) => !only || e === only)) {
  const { database, config, drop } = await freshDatabase(engine);
  const app = await buildApp({ database, config });
  await app.ready();
  const small = await organization(app, database, 10);
  const large = await organization(app, database, MANY);
  const times = { small: [] as number[], large: [] as number[], bare: [] as number[] };
  const timed = async (into: number[], run: () => Promise<unknown>) => {
    const t0 = performance.now();
    await run();
    into.push(performance.now() - t0);
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, org] of [
      ['small', small],
      ['large', large],
    ] as const) {
      for (let i = 0; i < CALLS; i++) {
        await timed(times[name], () =>
          call(app, org.key, 'POST', '/indicators/current-values', {
            indicatorIds: [org.indicator],
            year: 2025,
          }),
        );
        await timed(times.bare, () => call(app, org.key, 'GET', '/sites'));
      }
    }
  }
  const [s, l, b] = [median(times.small), median(times.large), median(times.bare)];
  out.push(
    `| ${engine} | ${s.toFixed(2)} | ${l.toFixed(2)} | ${b.toFixed(2)} | ${(l / s).toFixed(2)} | ${(s / b).toFixed(2)} | ${(l / b).toFixed(2)} |`,
  );
  await app.close();
  await drop();
}
await shutdownSandbox();
console.log(
  `Current values of one indicator (using one other): 10 against ${MANY} indicators in the organization, ms (median of ${ROUNDS * CALLS})`,
);
console.log(
  `| engine | 10 indicators | ${MANY} indicators | bare GET /sites | ${MANY} ÷ 10 | 10 ÷ bare | ${MANY} ÷ bare |`,
);
console.log('|---|---|---|---|---|---|---|');
for (const line of out) console.log(line);
