// POST /api/v1/form-submissions: 1,000 submissions of 50 values each (a monthly form with 50
// NUMBER elements, half of them sent in MWh and converted to kWh), through app.inject, on each
// engine. Three passes over the same 1,000 (form, site, year): create (one request at a time),
// update every value (one at a time), update again with 10 requests in flight.
// `npm run bench -- submissions`; BENCH_SITES=10 runs a tenth of it (100 (site, year), same passes).
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { call, engines, freshDatabase, median } from './lib.ts';

const SITES = Number(process.env['BENCH_SITES'] ?? 100);
const YEARS = Array.from({ length: 10 }, (_, i) => 2016 + i);
const ELEMENTS = 50;
const IN_FLIGHT = 10;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

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
  const organizationId = org!.organization.id;
  const units = new Map(
    (
      await database.system((tx) =>
        tx.selectFrom('units').select(['id', 'symbol']).where('organization_id', 'is', null).execute(),
      )
    ).map((u) => [u.symbol, u.id]),
  );
  const siteIds = (
    await database.tenant(organizationId, (tx) =>
      tx
        .insertInto('sites')
        .values(
          Array.from({ length: SITES }, (_, s) => ({
            organization_id: organizationId,
            name: `Site ${s}`,
            parent_id: null,
            code: null,
            latitude: null,
            longitude: null,
            metadata: JSON.stringify({}),
            address: JSON.stringify({}),
          })),
        )
        .returning('id')
        .execute(),
    )
  ).map((r) => r.id);
  const form = await call(app, key, 'POST', '/forms', {
    name: 'Energy',
    periodType: 'MONTHLY',
    elements: Array.from({ length: ELEMENTS }, (_, i) => ({
      key: `e${i}`,
      label: `Element ${i}`,
      type: 'NUMBER',
      unitId: units.get('kWh'),
    })),
  });
  await call(app, key, 'PUT', '/form-sites', { formId: form.id, siteIds, years: YEARS });

  const targets = YEARS.flatMap((year) => siteIds.map((siteId) => ({ siteId, year })));
  const body = (target: { siteId: string; year: number }, n: number, round: number) => ({
    formId: form.id,
    siteId: target.siteId,
    year: target.year,
    values: Array.from({ length: ELEMENTS }, (_, i) => ({
      elementKey: `e${i}`,
      periodUnit: (n % 12) + 1,
      value: round * 1000 + n + i / 10,
      ...(i % 2 === 0 ? { selectedUnitId: units.get('MWh') } : {}),
    })),
  });

  async function pass(label: string, round: number, inFlight: number) {
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < targets.length) {
        const n = next++;
        const t0 = performance.now();
        const res = await call(app, key, 'POST', '/form-submissions', body(targets[n]!, n, round));
        latencies.push(performance.now() - t0);
        if (res.values.length !== ELEMENTS) throw new Error('wrong answer');
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    const seconds = (performance.now() - started) / 1000;
    const perSecond = targets.length / seconds;
    rows.push(
      `| ${engine} | ${label} | ${seconds.toFixed(1)} | ${perSecond.toFixed(0)} | ${(perSecond * ELEMENTS).toFixed(0)} | ${median(latencies).toFixed(1)} | ${percentile(latencies, 99).toFixed(1)} |`,
    );
  }
  await pass('create, 1 in flight', 1, 1);
  await pass('update all values, 1 in flight', 2, 1);
  await pass(`update all values, ${IN_FLIGHT} in flight`, 3, IN_FLIGHT);

  const counts = await database.system(async (tx) => ({
    values: (
      await tx
        .selectFrom('form_element_submissions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
    history: (
      await tx
        .selectFrom('form_value_history')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  }));
  if (
    Number(counts.values) !== targets.length * ELEMENTS ||
    Number(counts.history) !== 3 * targets.length * ELEMENTS
  ) {
    throw new Error(`unexpected row counts: ${JSON.stringify(counts)}`);
  }
  await app.close();
  await drop();
}

console.log(
  `Form submissions: ${YEARS.length * SITES} submissions x ${ELEMENTS} NUMBER values (half converted from MWh), app.inject`,
);
console.log('| engine | pass | total s | submissions/s | values/s | p50 ms | p99 ms |');
console.log('|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
