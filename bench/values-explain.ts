// The plan of a 50-value submission's values-and-history statement, with its triggers' times
// (EXPLAIN ANALYZE of the very statement the service sends, inside the request's own transaction).
// `DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/values-explain.ts`
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { shutdownSandbox } from '../src/sandbox/index.ts';
import { call, freshDatabase } from './lib.ts';

const NUMBERS = 50;
const RUNS = Number(process.env['BENCH_REQUESTS'] ?? 40);
if (!process.env['DATABASE_URL']) {
  console.log('values-explain needs DATABASE_URL (PostgreSQL): skipped');
  process.exit(0);
}

let plans: string[] | null = null;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0];
  const text = typeof first === 'string' ? first : (first as { text?: string })?.text;
  if (plans && text && /^\s*with input as/.test(text) && text.includes('form_value_history')) {
    const explained = `explain (analyze, buffers, verbose) ${text}`;
    args[0] = typeof first === 'string' ? explained : { ...(first as object), text: explained };
    const result = query.apply(this, args) as Promise<{ rows: { 'QUERY PLAN': string }[] }>;
    const bucket = plans;
    return result.then((answer) => {
      bucket.push(answer.rows.map((r) => r['QUERY PLAN']).join('\n'));
      return { ...answer, rows: [] };
    });
  }
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

const { database, config, drop } = await freshDatabase('postgres');
void config;
const app = await buildApp({ database, config });
const org = (await createOrganizationWithKey(database, {
  organizationName: 'Explain',
  email: 'explain@example.com',
  name: 'Explain',
  password: null,
}))!;
const key = org.apiKey;
const sites: Array<{ id: string }> = [];
for (let i = 0; i < 10; i++) sites.push(await call(app, key, 'POST', '/sites', { name: `Plant ${i}` }));
const years = Array.from({ length: 9 }, (_, i) => 2016 + i);
const form = await call(app, key, 'POST', '/forms', {
  name: 'Monthly',
  periodType: 'MONTHLY',
  elements: Array.from({ length: NUMBERS }, (_, i) => ({
    key: `n${i}`,
    label: `Number ${i}`,
    type: 'NUMBER',
  })),
});
await call(app, key, 'PUT', '/form-sites', { formId: form.id, siteIds: sites.map((s) => s.id), years });
const submit = () =>
  call(app, key, 'POST', '/form-submissions', {
    formId: form.id,
    siteId: sites[Math.floor(Math.random() * sites.length)]!.id,
    year: years[Math.floor(Math.random() * years.length)],
    values: Array.from({ length: NUMBERS }, (_, i) => ({
      elementKey: `n${i}`,
      periodUnit: 1 + Math.floor(Math.random() * 12),
      value: Math.round(Math.random() * 1e6) / 100,
    })),
  });
for (let i = 0; i < 200; i++) await submit(); // fill: most later slots are updates
plans = [];
for (let i = 0; i < RUNS; i++) await submit();
// Mean of each trigger line and of the execution time over the runs; the last plan in full.
const sums = new Map<string, { n: number; ms: number; calls: number }>();
for (const plan of plans) {
  for (const line of plan.split('\n')) {
    const node = /->\s+((?:Insert|Update) on \S+).*actual time=[\d.]+\.\.([\d.]+)/.exec(line);
    const m = node
      ? [line, node[1], node[2]]
      : /^(Trigger .*?|Execution Time|Planning Time): (?:time=)?([\d.]+)(?: ms)?(?: calls=(\d+))?/.exec(
          line.trim(),
        );
    if (!m) continue;
    const e = sums.get(m[1]!) ?? { n: 0, ms: 0, calls: 0 };
    e.n++;
    e.ms += Number(m[2]);
    e.calls += Number(m[3] ?? 0);
    sums.set(m[1]!, e);
  }
}
console.log(plans.at(-1));
console.log(`\nmeans over ${plans.length} statements:`);
for (const [name, e] of [...sums.entries()].sort((a, b) => b[1].ms - a[1].ms)) {
  console.log(
    `${(e.ms / plans.length).toFixed(3)} ms  ${name}  (calls/statement ${(e.calls / plans.length).toFixed(1)})`,
  );
}
await app.close();
await shutdownSandbox();
await drop();
