// Indicators: POST /api/v1/indicators/current-values for 10 indicators at the root of a tree of
// SITES sites (descendants included) over SITES × 12 months × 80 NUMBER elements of stored
// values, and GET /api/v1/indicators with 500 indicators, through app.inject, on each engine.
// `npm run bench -- indicators` (SITES=1000 by default: 960,000 values). SITES=100,1000 runs both
// sizes in one run and prints each operation's ratio of the largest size to the smallest (what
// grows with the data).
import { performance } from 'node:perf_hooks';
import { type RawBuilder, sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { totalsSource } from '../src/modules/indicators/indicators.scope.ts';
import { indicatorSeries } from '../src/modules/indicators/indicators.series.ts';
import { indicatorValuesRepository } from '../src/modules/indicators/values.repository.ts';
import {
  call,
  energyOrganization,
  engines,
  freshDatabase,
  median,
  rootIndicators,
  seedEnergyValues,
} from './lib.ts';

const SIZES = (process.env['SITES'] ?? '1000').split(',').map(Number);
const ELEMENTS = 80;
const MONTHS = 12;
const INDICATORS = 500;
const RUNS = Number(process.env['RUNS'] ?? 5);

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
/** Medians by `engine | operation`, then by size. */
const medians = new Map<string, Map<number, number>>();
const only = process.env['ENGINES']?.split(',');
for (const SITES of SIZES)
  for (const engine of engines().filter((e) => !only || only.includes(e))) {
    const { database, config, drop } = await freshDatabase(engine);
    const app = await buildApp({ database, config });
    await app.ready();
    const org = await energyOrganization(database, app, ELEMENTS, (i) => (i % 10 === 9 ? 'LAST' : 'SUM'));
    const { key, orgId, userId, rootId, formId, elementIds } = org;
    const seedStart = performance.now();
    await seedEnergyValues(database, org, SITES, MONTHS);
    const seedSeconds = (performance.now() - seedStart) / 1000;

    // 10 indicators at the root: (a + b) × grid / headcount-like (LAST) element; 20 + 10 elements.
    const { indicatorIds: measured, el, op, grid } = await rootIndicators(app, org);
    const body = { indicatorIds: measured, siteIds: [rootId], year: 2025 };
    const check = await call(app, key, 'POST', '/indicators/current-values', body);
    if (Object.values(check.results).some((r) => (r as { value: unknown }).value === null))
      throw new Error('a value is null');
    const values = await timed(() => call(app, key, 'POST', '/indicators/current-values', body));
    // The aggregate statement alone (all 30 elements of the 10 indicators), inside a tenant
    // transaction: every site, so no site filter (as the service does for the root).
    const used = [...Array(10).keys()]
      .flatMap((k) => [k, k + 10, 10 * k + 9])
      .map((i) => elementIds[i % ELEMENTS]!);
    const lastIds = used.filter((_, i) => i % 3 === 2);
    const scope = {
      siteIds: null,
      fromYear: 2025,
      toYear: 2025,
      periodUnits: null,
      statuses: ['COMPLETED', 'APPROVED'] as ('COMPLETED' | 'APPROVED')[],
    };
    // As the service calls it: the SUM elements summed without a per-site step, tuned for hashing.
    const sumIds = used.filter((id) => !lastIds.includes(id));
    const aggregate = await timed(() =>
      database.tenant(orgId, async (tx) => {
        await indicatorValuesRepository.tuneForAggregates(tx);
        return indicatorValuesRepository.elements(tx, orgId, used, lastIds, scope, undefined, sumIds);
      }),
    );
    const explain = async (label: string, statement: RawBuilder<unknown>) => {
      if (!process.env['EXPLAIN']) return;
      const plan = await database.tenant(orgId, async (tx) => {
        await indicatorValuesRepository.tuneForAggregates(tx);
        const result = await sql<{ 'QUERY PLAN': string }>`explain (analyze, buffers) ${statement}`.execute(
          tx,
        );
        return result.rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      console.error(`-- ${engine}, ${label}\n${plan}`);
    };
    await explain(
      'every site',
      indicatorValuesRepository.elementsStatement(orgId, used, lastIds, scope, undefined, sumIds),
    );
    // One region (about a tenth of the plants): the statement with a site list.
    const region = await database.tenant(orgId, async (tx) =>
      (
        await sql<{ id: string }>`
        select id from sites where organization_id = ${orgId}
           and (name = 'Region 1' or parent_id = (select id from sites where organization_id = ${orgId} and name = 'Region 1'))
         order by (name = 'Region 1') desc`.execute(tx)
      ).rows.map((r) => r.id),
    );
    const regionBody = { indicatorIds: measured, siteIds: [region[0]], year: 2025 };
    const regional = await timed(() => call(app, key, 'POST', '/indicators/current-values', regionBody));
    await explain(
      'one region',
      indicatorValuesRepository.elementsStatement(
        orgId,
        used,
        lastIds,
        { ...scope, siteIds: region },
        undefined,
        sumIds,
      ),
    );
    // Twelve monthly points of the 10 indicators at the root (dashboards).
    const seriesAtRoot = (ids: string[]) => () =>
      database.tenant(orgId, (tx) =>
        indicatorSeries(
          tx,
          { organizationId: orgId },
          { indicatorIds: ids, siteIds: [rootId], fromYear: 2025, toYear: 2025, grouping: 'MONTHLY' },
          new Date(),
        ),
      );
    const monthly = await timed(seriesAtRoot(measured));
    // The same without the pre-aggregated totals (migration 0029): the direct computation, as a
    // baseline of the same run. And 10 indicators of SUM elements only, `(a + b) × grid`, which the
    // totals answer entirely (the LAST elements above are still read from the values).
    const direct = async <T>(fn: () => Promise<T>): Promise<T> => {
      totalsSource.enabled = false;
      try {
        return await fn();
      } finally {
        totalsSource.enabled = true;
      }
    };
    const valuesDirect = await direct(() =>
      timed(() => call(app, key, 'POST', '/indicators/current-values', body)),
    );
    // Only SUM elements (every tenth element is LAST: 9, 19, … are left out).
    const sumElements = [...Array(ELEMENTS).keys()].filter((i) => i % 10 !== 9);
    const sums: string[] = [];
    for (let k = 0; k < 10; k++)
      sums.push(
        (
          await call(app, key, 'POST', '/indicators', {
            name: `Sum ${k}`,
            expressionParts: [
              { type: 'parenthesis', value: '(' },
              el(sumElements[k]!),
              op('+'),
              el(sumElements[k + 10]!),
              { type: 'parenthesis', value: ')' },
              op('*'),
              grid,
            ],
          })
        ).id,
      );
    const sumBody = { indicatorIds: sums, siteIds: [rootId], year: 2025 };
    const sumRegionBody = { indicatorIds: sums, siteIds: [region[0]], year: 2025 };
    const sumCheck = await call(app, key, 'POST', '/indicators/current-values', sumBody);
    const sumCheckDirect = await direct(() => call(app, key, 'POST', '/indicators/current-values', sumBody));
    if (JSON.stringify(sumCheck) !== JSON.stringify(sumCheckDirect))
      throw new Error('the totals and the direct computation differ');
    const sumRoot = await timed(() => call(app, key, 'POST', '/indicators/current-values', sumBody));
    const sumRootDirect = await direct(() =>
      timed(() => call(app, key, 'POST', '/indicators/current-values', sumBody)),
    );
    const sumRegion = await timed(() => call(app, key, 'POST', '/indicators/current-values', sumRegionBody));
    const sumRegionDirect = await direct(() =>
      timed(() => call(app, key, 'POST', '/indicators/current-values', sumRegionBody)),
    );
    const sumMonthly = await timed(seriesAtRoot(sums));
    const sumMonthlyDirect = await direct(() => timed(seriesAtRoot(sums)));
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
    // With the visibility map set (PostgreSQL's autovacuum does it in time; PGlite has none), the
    // reads are index-only scans without heap visits: the values and the aggregates they feed.
    await database.execScript(
      'vacuum analyze form_element_submissions, value_totals, value_site_stats, value_subtree_stats',
    );
    // The pages VACUUM dirtied are written out before the reads, so that the reads do not share the
    // disk with that flush (at 9.6 million values it took the next statements seconds).
    if (engine === 'postgres') await database.execScript('checkpoint');
    const vacuumed = await timed(() => call(app, key, 'POST', '/indicators/current-values', body));
    const regionalVacuumed = await timed(() =>
      call(app, key, 'POST', '/indicators/current-values', regionBody),
    );
    const monthlyVacuumed = await timed(seriesAtRoot(measured));
    await explain(
      'every site, after vacuum',
      indicatorValuesRepository.elementsStatement(orgId, used, lastIds, scope, undefined, sumIds),
    );

    // The write cost of the trigger that fills site and year when a writer leaves them out: a new
    // submission's 960 values (80 elements × 12 months) inserted without them, then with them, each
    // time in a transaction rolled back.
    const writeCost = async (explicit: boolean) =>
      timed(() =>
        database
          .system(async (tx) => {
            await sql`select set_config('app.organization_id', ${orgId}, true)`.execute(tx);
            const { rows: made } = await sql<{ id: string; site_id: string }>`
            with fs as (
              insert into form_sites (organization_id, form_id, site_id, year)
              values (${orgId}, ${formId}, ${rootId}, 2024) returning id, site_id)
            insert into form_submissions (organization_id, form_site_id, user_id)
            select ${orgId}, fs.id, ${userId}::uuid from fs returning id, (select site_id from fs)`.execute(
              tx,
            );
            const sub = made[0]!;
            await sql`
            insert into form_element_submissions
              (organization_id, form_submission_id, element_id, period_unit, value, numeric_value, user_id
               ${explicit ? sql`, site_id, year` : sql``})
            select ${orgId}, ${sub.id}::uuid, e.id, m, '1', 1, ${userId}::uuid
                   ${explicit ? sql`, ${sub.site_id}::uuid, 2024` : sql``}
              from unnest(${elementIds}::uuid[]) e(id) cross join generate_series(1, 12) m`.execute(tx);
            throw new Error('rollback');
          })
          .catch((e: Error) => {
            if (e.message !== 'rollback') throw e;
          }),
      );
    const withTrigger = await writeCost(false);
    const withoutTrigger = await writeCost(true);
    // The same insert with the totals' and statistics' triggers (0029, 0033) disabled: what the
    // pre-aggregation adds to it.
    const triggers = (on: 'enable' | 'disable') =>
      database.execScript(
        ['totals', 'stats']
          .map(
            (kind) =>
              `alter table form_element_submissions ${on} trigger form_element_submissions_${kind}_on_insert;`,
          )
          .join('\n'),
      );
    await triggers('disable');
    const withoutTotals = await writeCost(true);
    await triggers('enable');

    const values_ = SITES * ELEMENTS * MONTHS;
    const fmt = (t: number[]) =>
      `${median(t).toFixed(0)} | ${Math.min(...t).toFixed(0)} | ${Math.max(...t).toFixed(0)}`;
    const measuredOps: [string, number[]][] = [
      ['current values, 10 indicators, root', values],
      ['of which the one aggregate statement', aggregate],
      ['same, Q1 and APPROVED only', q1],
      [`GET /indicators (${INDICATORS} indicators)`, list],
      ['current values, one region', regional],
      ['series, 10 indicators × 12 months, root', monthly],
      ['current values, root, after VACUUM', vacuumed],
      ['current values, one region, after VACUUM', regionalVacuumed],
      ['series × 12 months, root, after VACUUM', monthlyVacuumed],
      ['current values, root, direct (no totals)', valuesDirect],
      ['10 SUM-only indicators, root, totals', sumRoot],
      ['10 SUM-only indicators, root, direct', sumRootDirect],
      ['10 SUM-only indicators, one region, totals', sumRegion],
      ['10 SUM-only indicators, one region, direct', sumRegionDirect],
      ['10 SUM-only indicators × 12 months, root, totals', sumMonthly],
      ['10 SUM-only indicators × 12 months, root, direct', sumMonthlyDirect],
      ['insert 960 values, totals and statistics triggers disabled', withoutTotals],
      ['insert 960 values, site/year by trigger', withTrigger],
      ['insert 960 values, site/year given', withoutTrigger],
    ];
    for (const [label, times] of measuredOps) {
      rows.push(`| ${engine} | ${label} | ${SITES + 11} | ${values_} | ${fmt(times)} |`);
      const key = `${engine} | ${label}`;
      if (!medians.has(key)) medians.set(key, new Map());
      medians.get(key)!.set(SITES, median(times));
    }
    console.error(`${engine}: one region is ${region.length} sites`);
    console.error(`${engine}: seeded ${values_} values in ${seedSeconds.toFixed(1)} s`);
    await app.close();
    // KEEP_DB=1 keeps the PostgreSQL database (to try statements on it with psql).
    if (process.env['KEEP_DB'] && engine === 'postgres') console.error(`kept ${config.databaseUrl}`);
    else await drop();
  }

console.log(`\nIndicators (median of ${RUNS} after a warm-up), app.inject\n`);
console.log('| engine | operation | sites | stored values | median ms | min ms | max ms |');
console.log('|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
if (SIZES.length > 1) {
  const [small, large] = [Math.min(...SIZES), Math.max(...SIZES)];
  console.log(
    `\nSame run: median at SITES=${large} ÷ median at SITES=${small} (${large / small}× the values)\n`,
  );
  console.log('| engine | operation | ratio |');
  console.log('|---|---|---|');
  for (const [key, bySize] of medians)
    console.log(`| ${key} | ${(bySize.get(large)! / bySize.get(small)!).toFixed(2)} |`);
}
