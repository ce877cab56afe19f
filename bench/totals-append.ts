// What an append-only design of the value totals would save an import (PostgreSQL only): 10,000
// values (10 sites x 84 elements x 12 months) written in four statements of 2,500, as an import
// writes them, into tables of `value_totals`'s shape, without triggers:
// - upsert: each value's site row and the organization's row, grouped, ordered, ON CONFLICT (today);
// - append: the same grouped rows appended to a table with a non-unique index for readers;
// - site only: one appended row per value at its site (ancestors added up later);
// - packed: one upserted row per (site or organization, element, year, status), the twelve periods'
//   sums and counts in two arrays, added element by element;
// - the upsert into an unlogged table (no WAL), and the rows of the upsert and of the packed
//   variant made and grouped but not written: where the upsert's time goes.
// `DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- totals-append`
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { freshDatabase, median } from './lib.ts';

if (!process.env['DATABASE_URL']) {
  console.log('totals-append: PostgreSQL only; set DATABASE_URL');
  process.exit(0);
}
const ROUNDS = 5;
const { database, config, drop } = await freshDatabase('postgres');
await database.close();
const client = new pg.Client({ connectionString: config.databaseUrl! });
await client.connect();

const COLUMNS = `organization_id uuid, site_id uuid, element_id uuid, year int, status text, period_unit int,
  stripe smallint, total numeric NOT NULL DEFAULT 0, value_count bigint NOT NULL DEFAULT 0`;
const KEY = 'organization_id, site_id, element_id, year, status, period_unit, stripe';
await client.query(`
  CREATE TABLE bench_els AS SELECT gen_random_uuid() AS id FROM generate_series(1, 84);
  CREATE TABLE bench_sites AS SELECT gen_random_uuid() AS id FROM generate_series(1, 10);
  CREATE TABLE bench_org AS SELECT gen_random_uuid() AS id;
  CREATE TABLE bench_vals AS SELECT row_number() OVER (ORDER BY e.id, p, s.id) AS n, s.id AS site, e.id AS el, p AS period,
         (random() * 1000)::numeric AS v
    FROM bench_els e, generate_series(1, 12) p, bench_sites s;`);

/** The rows of one 2,500-value statement: each value at its site, and the organization's sums. */
const grouped = (chunk: number) => `
  SELECT (SELECT id FROM bench_org), x.sid, x.el, 2025, 'COMPLETED', x.period, 1::smallint, sum(x.v), count(*)
    FROM (SELECT site AS sid, el, period, v FROM bench_vals WHERE n > ${chunk * 2500} AND n <= ${(chunk + 1) * 2500}
          UNION ALL
          SELECT (SELECT id FROM bench_org), el, period, v FROM bench_vals WHERE n > ${chunk * 2500} AND n <= ${(chunk + 1) * 2500}) x
   GROUP BY 1, 2, 3, 4, 5, 6, 7`;
/** The packed rows of one statement: per site (and the organization) and element, twelve sums and counts. */
const months = Array.from({ length: 12 }, (_, i) => i + 1);
const packed = (chunk: number) => `
  SELECT (SELECT id FROM bench_org), x.sid, x.el, 2025, 'COMPLETED', 1::smallint,
         ARRAY[${months.map((m) => `coalesce(sum(x.v) FILTER (WHERE x.period = ${m}), 0)`).join(', ')}],
         ARRAY[${months.map((m) => `count(*) FILTER (WHERE x.period = ${m})`).join(', ')}]
    FROM (SELECT site AS sid, el, period, v FROM bench_vals WHERE n > ${chunk * 2500} AND n <= ${(chunk + 1) * 2500}
          UNION ALL
          SELECT (SELECT id FROM bench_org), el, period, v FROM bench_vals WHERE n > ${chunk * 2500} AND n <= ${(chunk + 1) * 2500}) x
   GROUP BY 1, 2, 3, 4, 5, 6`;
const PACKED_KEY = 'organization_id, site_id, element_id, year, status, stripe';
const upsert = (c: number) => `INSERT INTO bench_t AS t ${grouped(c)} ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (${KEY}) DO UPDATE SET total = t.total + excluded.total, value_count = t.value_count + excluded.value_count`;
const variants: Record<string, { table: string; statement: (chunk: number) => string }> = {
  upsert: {
    table: `CREATE TABLE bench_t (${COLUMNS}, PRIMARY KEY (${KEY}))`,
    statement: upsert,
  },
  'upsert, unlogged table': {
    table: `CREATE UNLOGGED TABLE bench_t (${COLUMNS}, PRIMARY KEY (${KEY}))`,
    statement: upsert,
  },
  append: {
    table: `CREATE TABLE bench_t (${COLUMNS}); CREATE INDEX ON bench_t (${KEY})`,
    statement: (c) => `INSERT INTO bench_t ${grouped(c)}`,
  },
  'site only': {
    table: `CREATE TABLE bench_t (${COLUMNS}); CREATE INDEX ON bench_t (${KEY})`,
    statement: (
      c,
    ) => `INSERT INTO bench_t SELECT (SELECT id FROM bench_org), site, el, 2025, 'COMPLETED', period, 1::smallint, v, 1
      FROM bench_vals WHERE n > ${c * 2500} AND n <= ${(c + 1) * 2500}`,
  },
  packed: {
    table: `CREATE TABLE bench_t (organization_id uuid, site_id uuid, element_id uuid, year int, status text,
      stripe smallint, totals numeric[] NOT NULL, value_counts bigint[] NOT NULL, PRIMARY KEY (${PACKED_KEY}))`,
    statement: (c) => `INSERT INTO bench_t AS t ${packed(c)} ORDER BY 1, 2, 3, 4, 5, 6
      ON CONFLICT (${PACKED_KEY}) DO UPDATE
        SET totals = ARRAY(SELECT a + b FROM unnest(t.totals, excluded.totals) u(a, b)),
            value_counts = ARRAY(SELECT a + b FROM unnest(t.value_counts, excluded.value_counts) u(a, b))`,
  },
  // What the two upserts spend before writing: their rows, grouped, and nothing stored.
  'upsert rows, not written': {
    table: `CREATE TABLE bench_t (${COLUMNS})`,
    statement: (c) => `SELECT count(*) FROM (${grouped(c)}) q`,
  },
  'packed rows, not written': {
    table: `CREATE TABLE bench_t (${COLUMNS})`,
    statement: (c) => `SELECT count(*) FROM (${packed(c)}) q`,
  },
};

const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, variant] of Object.entries(variants)) {
    await client.query(`DROP TABLE IF EXISTS bench_t; ${variant.table}`);
    const t0 = performance.now();
    for (let chunk = 0; chunk < 4; chunk++) await client.query(variant.statement(chunk));
    times[name]!.push(performance.now() - t0);
  }
}
await client.end();
await drop();

const base = median(times['upsert']!);
console.log(`Totals of 10,000 values in four statements, ms (median of ${ROUNDS}, alternated)`);
console.log('| what is written | ms | ÷ upsert |\n|---|---|---|');
for (const [name, list] of Object.entries(times))
  console.log(`| ${name} | ${median(list).toFixed(1)} | ${(median(list) / base).toFixed(2)} |`);
