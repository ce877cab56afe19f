// Where the time of a 50-value submission and of a list page goes (issue 46, item 1), on PostgreSQL:
// - one request at a time: the statements each request sends (round trips), the time spent waiting
//   for their answers, and the rest of the request (the process's own work);
// - 10 requests in flight: a CPU profile of the process, its samples attributed to the part of the
//   code they ran in (framework, validation, the values pipeline, driver, serialisation, runtime,
//   garbage collection), and the database backends' states sampled meanwhile (running a statement,
//   waiting for a lock or for I/O, or idle in a transaction while the service works between two
//   statements).
// `DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- request-profile`
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { findSourceMap } from 'node:module';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { createOrganizationWithKey } from '../src/modules/organizations/bootstrap.ts';
import { shutdownSandbox } from '../src/sandbox/index.ts';
import { call, freshDatabase, median } from './lib.ts';

const SEQUENTIAL = Number(process.env['BENCH_REQUESTS'] ?? 100);
const DURATION_S = Number(process.env['BENCH_SECONDS'] ?? 8);
const CONNECTIONS = 10;
const LOAD = 'load generator (autocannon)';
const IDLE = '(idle)';
const PROFILER = 'the profiler';
/** Self time per function of the last profile attributed. */
const top = new Map<string, number>();
const NUMBERS = 50;

if (!process.env['DATABASE_URL']) {
  console.log('request-profile needs DATABASE_URL (PostgreSQL): skipped');
  process.exit(0);
}

// Every statement the service sends, with the time from sending to its answer, per request (one
// request at a time, so each statement belongs to the request in flight).
interface Sent {
  text: string;
  ms: number;
}
let sent: Sent[] | null = null;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const bucket = sent;
  if (!bucket) return query.apply(this, args);
  const first = args[0];
  const text = typeof first === 'string' ? first : ((first as { text?: string })?.text ?? '?');
  const t0 = performance.now();
  const callback = args[args.length - 1];
  if (typeof callback === 'function') {
    args[args.length - 1] = (...answer: unknown[]) => {
      bucket.push({ text, ms: performance.now() - t0 });
      return callback(...answer);
    };
    return query.apply(this, args);
  }
  const result = query.apply(this, args);
  if (!(result instanceof Promise)) return result;
  return result.then((answer) => {
    bucket.push({ text, ms: performance.now() - t0 });
    return answer;
  });
} as typeof pg.Client.prototype.query;

const { database, config, drop } = await freshDatabase('postgres');
const app = await buildApp({ database, config });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1`;
const org = (await createOrganizationWithKey(database, {
  organizationName: 'Profile',
  email: 'profile@example.com',
  name: 'Profile',
  password: null,
}))!;
const key = org.apiKey;
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const sites: Array<{ id: string }> = [];
for (let i = 0; i < 10; i++) sites.push(await call(app, key, 'POST', '/sites', { name: `Plant ${i}` }));
const definition = await call(app, key, 'POST', '/activity-definitions', {
  name: 'Fuel',
  key: 'fuel',
  uiCode: '',
  calcCode: 'return { value: inputs.litres * 2.5 };',
  inputs: [{ name: 'litres', type: 'number', required: true }],
});
const years = Array.from({ length: 9 }, (_, i) => 2016 + i);
const form = await call(app, key, 'POST', '/forms', {
  name: 'Monthly',
  periodType: 'MONTHLY',
  elements: [
    { key: 'fuel', label: 'Fuel', type: 'ACTIVITY', activityDefinitionId: definition.id },
    ...Array.from({ length: NUMBERS }, (_, i) => ({ key: `n${i}`, label: `Number ${i}`, type: 'NUMBER' })),
  ],
});
await call(app, key, 'PUT', '/form-sites', { formId: form.id, siteIds: sites.map((s) => s.id), years });
await call(app, key, 'POST', '/form-submissions', {
  formId: form.id,
  siteId: sites[0]!.id,
  year: 2016,
  values: [
    {
      elementKey: 'fuel',
      periodUnit: 1,
      value: Array.from({ length: 1_000 }, (_, i) => ({ litres: i + 1 })),
    },
  ],
});
const submitBody = () =>
  JSON.stringify({
    formId: form.id,
    siteId: sites[Math.floor(Math.random() * sites.length)]!.id,
    year: years[Math.floor(Math.random() * years.length)],
    values: Array.from({ length: NUMBERS }, (_, i) => ({
      elementKey: `n${i}`,
      periodUnit: 1 + Math.floor(Math.random() * 12),
      value: Math.round(Math.random() * 1e6) / 100,
    })),
  });
const listUrl = `${base}/activities?formId=${form.id}&key=fuel&limit=100`;
const submitUrl = `${base}/form-submissions`;

type Probe = { what: string; url: string; method: 'GET' | 'POST'; body?: () => string };
const probes: Probe[] = [
  { what: 'POST /form-submissions, 50 values', url: submitUrl, method: 'POST', body: submitBody },
  { what: 'GET /activities, page of 100', url: listUrl, method: 'GET' },
];

const sampler = new pg.Client({ connectionString: config.databaseUrl! });
await sampler.connect();
const databaseName = (await sampler.query('select current_database() as name')).rows[0].name as string;

const lines: string[] = [];
for (const probe of probes) {
  const request = async () => {
    const res = await fetch(probe.url, {
      method: probe.method,
      headers,
      ...(probe.body ? { body: probe.body() } : {}),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${probe.what}: ${res.status}`);
  };
  for (let i = 0; i < 20; i++) await request(); // warm-up

  // One request at a time: statements and the time around them.
  const totals: number[] = [];
  const waits: number[] = [];
  const counts: number[] = [];
  const perStatement = new Map<string, { n: number; ms: number }>();
  for (let i = 0; i < SEQUENTIAL; i++) {
    sent = [];
    const t0 = performance.now();
    await request();
    totals.push(performance.now() - t0);
    const mine = sent;
    sent = null;
    counts.push(mine.length);
    waits.push(mine.reduce((sum, s) => sum + s.ms, 0));
    for (const s of mine) {
      const name = statementName(s.text);
      const entry = perStatement.get(name) ?? { n: 0, ms: 0 };
      entry.n++;
      entry.ms += s.ms;
      perStatement.set(name, entry);
    }
  }
  const total = median(totals);
  const wait = median(waits);
  lines.push(
    '',
    `### ${probe.what}: one request at a time (${SEQUENTIAL} requests, medians)`,
    '',
    '| part | ms | share |',
    '|---|---|---|',
    `| whole request (client's view) | ${total.toFixed(2)} | 100% |`,
    `| waiting for the database (${median(counts)} statements, each a round trip) | ${wait.toFixed(2)} | ${pct(wait, total)} |`,
    `| the process's own work and HTTP | ${(total - wait).toFixed(2)} | ${pct(total - wait, total)} |`,
    '',
    '| statement (per request) | count | mean ms |',
    '|---|---|---|',
    ...[...perStatement.entries()]
      .sort((a, b) => b[1].ms - a[1].ms)
      .map(([name, s]) => `| ${name} | ${(s.n / SEQUENTIAL).toFixed(1)} | ${(s.ms / s.n).toFixed(2)} |`),
  );

  // Ten in flight: the process's CPU profile and the backends' states.
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  const states = new Map<string, number>();
  let sampling = true;
  const sampleStates = (async () => {
    while (sampling) {
      const { rows } = await sampler.query(
        `select state, wait_event_type, wait_event from pg_stat_activity
          where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'`,
        [databaseName],
      );
      for (const row of rows) {
        const state =
          row.state === 'active'
            ? row.wait_event_type
              ? `running, waiting on ${row.wait_event_type}: ${row.wait_event}`
              : 'running (CPU)'
            : row.state;
        states.set(state, (states.get(state) ?? 0) + 1);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  await session.post('Profiler.start');
  const result = await autocannon({
    url: probe.url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: [
      {
        method: probe.method,
        headers,
        ...(probe.body ? { setupRequest: (req: object) => ({ ...req, body: probe.body!() }) } : {}),
      },
    ],
  });
  const { profile } = await session.post('Profiler.stop');
  sampling = false;
  await sampleStates;
  session.disconnect();
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${probe.what}: ${result.non2xx} non-2xx`);
  // BENCH_PROFILE_DIR=dir: the profile is kept there too (open it in Chrome's DevTools).
  const keep = process.env['BENCH_PROFILE_DIR'];
  if (keep)
    writeFileSync(
      `${keep}/${probe.method.toLowerCase()}-${probes.indexOf(probe)}.cpuprofile`,
      JSON.stringify(profile),
    );
  const parts = attribute(profile as Profile);
  const counted = [...parts.entries()].filter(
    ([part]) => part !== LOAD && part !== IDLE && part !== PROFILER,
  );
  const cpu = counted.reduce((sum, [, us]) => sum + us, 0);
  const stateTotal = [...states.values()].reduce((a, b) => a + b, 0);
  lines.push(
    '',
    `### ${probe.what}: ${CONNECTIONS} in flight, ${DURATION_S} s: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms`,
    '',
    `CPU of the process per request: ${(cpu / 1000 / result.requests.total).toFixed(2)} ms (the load generator's share, ${pct(parts.get(LOAD) ?? 0, cpu + (parts.get(LOAD) ?? 0))} of the samples, left out)`,
    '',
    '| part of the process | share of its CPU |',
    '|---|---|',
    ...counted.sort((a, b) => b[1] - a[1]).map(([part, us]) => `| ${part} | ${pct(us, cpu)} |`),
    '',
    '| the 12 functions with the most self time | share of the CPU |',
    '|---|---|',
    ...[...top.entries()]
      .filter(([where]) => !/autocannon|hdr-histogram|\(idle\)|^dispatch :/.test(where))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([where, us]) => `| ${where} | ${pct(us, cpu)} |`),
    '',
    '| database backends (sampled every ~5 ms) | share |',
    '|---|---|',
    ...[...states.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([state, n]) => `| ${state} | ${pct(n, stateTotal)} |`),
  );
}

await sampler.end();
await app.close();
await drop();
await shutdownSandbox();
console.log(`Request profile on PostgreSQL (${new Date().toISOString()})`);
for (const line of lines) console.log(line);

function pct(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : '-';
}

/** A statement named by its first words and tables, without parameters. */
function statementName(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (/^(begin|commit|rollback)/i.test(flat)) return flat.split(' ')[0]!.toUpperCase();
  const verb = /^(with|select|insert|update|delete|set|reset|call)\b/i.exec(flat)?.[1]?.toUpperCase() ?? '?';
  const tables = [...flat.matchAll(/\b(?:from|into|update|join)\s+"?([a-z_]+)"?/gi)].map((m) => m[1]);
  const fns = [...flat.matchAll(/\b(sdcs_[a-z_]+|set_config)\s*\(/gi)].map((m) => m[1]);
  return `${verb} ${[...new Set([...fns, ...tables])].slice(0, 4).join(', ')}`.trim();
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  parent?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The original file of a frame (through the bundle's source map when there is one). */
function sourceOf(frame: ProfileNode['callFrame']): string {
  const url = frame.url;
  if (!url) return '';
  if (url.includes('dist-bench')) {
    const map = findSourceMap(url) ?? findSourceMap(url.startsWith('file:') ? fileURLToPath(url) : url);
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as
      | { originalSource?: string }
      | undefined;
    return entry?.originalSource ?? url;
  }
  return url;
}

function partOf(frame: ProfileNode['callFrame']): string | null {
  const name = frame.functionName;
  if (name === '(garbage collector)') return 'garbage collection';
  if (name === '(idle)') return IDLE;
  if (name === '(program)') return 'native (program)';
  // The profiler's own answer at the end (the profile serialised into the session's message).
  if (name === 'dispatch' && !frame.url) return PROFILER;
  if (/^validate\d+$/.test(name)) return 'validation (ajv)';
  const source = sourceOf(frame);
  if (!source || source.startsWith('node:') || source.startsWith('wasm')) return null;
  const rules: Array<[RegExp, string]> = [
    [/node_modules\/(autocannon|hdr-histogram|reinterval|retimer|hyperid)|dist-bench\/request-profile/, LOAD],
    [/node_modules\/(ajv|fast-uri|@fastify\/ajv-compiler)/, 'validation (ajv)'],
    [/node_modules\/fast-json-stringify|serializer/, 'serialisation'],
    [/node_modules\/(pg|pg-protocol|pg-types|pg-pool|postgres-[a-z]+|kysely)\//, 'driver and query building'],
    [
      /node_modules\/(fastify|find-my-way|light-my-request|avvio|@fastify|fastify-plugin|pino|abstract-logging)/,
      'HTTP framework and logging',
    ],
    [
      /src\/modules\/(submissions|values)\/(values\.|element-types|submissions\.values)/,
      'values pipeline (resolve, rules, guards)',
    ],
    [/src\/modules\/submissions\//, 'submissions (service, presenter)'],
    [/src\/modules\/activities\//, 'activities (list, presenter)'],
    [/src\/modules\/access\//, 'site scope'],
    [/src\/(http|modules\/auth)\//, 'request glue (auth, errors, schemas)'],
    [/src\/db\//, 'database layer (transactions, history)'],
    [/src\//, 'other service code'],
    [/node_modules\//, 'other libraries'],
  ];
  for (const [pattern, part] of rules) if (pattern.test(source)) return part;
  return 'other';
}

/** Self time of every sample, given to the innermost frame that belongs to a known part. */
function attribute(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const node of profile.nodes)
    for (const child of node.children ?? []) byId.get(child)!.parent = node.id;
  const cache = new Map<number, string>();
  const partOfNode = (id: number): string => {
    const known = cache.get(id);
    if (known) return known;
    let node = byId.get(id);
    let part: string | null = null;
    while (node && !part) {
      part = partOf(node.callFrame);
      node = node.parent === undefined ? undefined : byId.get(node.parent);
    }
    const result = part ?? 'node runtime (net, streams, timers)';
    cache.set(id, result);
    return result;
  };
  const parts = new Map<string, number>();
  top.clear();
  profile.samples.forEach((id, i) => {
    const part = partOfNode(id);
    const us = profile.timeDeltas[i] ?? 0;
    parts.set(part, (parts.get(part) ?? 0) + us);
    const frame = byId.get(id)!.callFrame;
    const where = `${frame.functionName || '(anonymous)'} ${(sourceOf(frame) || frame.url).replace(/^.*(node_modules|src)\//, '$1/')}:${frame.lineNumber + 1}`;
    top.set(where, (top.get(where) ?? 0) + us);
  });
  return parts;
}
