// Issue 50's table: organization B's latencies on two service processes (the bundled service,
// `dist/sdcs.mjs serve`, as deployed) sharing one PostgreSQL database, while organization A works
// within its limits. B sends, every second, four reads (GET /me, /sites, /form-submissions, /forms)
// and one 50-value submission, spread over both processes. A, per phase: nothing; holds 12 stalled
// CSV exports; sends a 10,000-row import every 5 s; runs 8 XLSX exports back to back. Per phase:
// B's p50, p99, p99 against the idle phase, B's errors, /health/ready on both processes (sampled
// every second), the processes' event-loop delay p99 (prom-client's monitorEventLoopDelay, per
// second, the worst second) and peak RSS (VmHWM of each process).
// `npm run bench -- noisy-neighbour`   (DATABASE_URL required; PHASE_SECONDS=40; TABLE=issue41 runs
// issue 41's in-process scenario instead)
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import {
  call,
  importSetup,
  member,
  must,
  organization,
  quantile,
  seedValues,
  stall,
} from '../test/hardening/noisy-neighbour.world.ts';
import { freshDatabase } from './lib.ts';

if (!process.env['DATABASE_URL']) {
  console.log('noisy-neighbour: needs DATABASE_URL (PostgreSQL); skipped');
  process.exit(0);
}
if (process.env['TABLE'] === 'issue41') {
  await import('./_noisy-neighbour-issue41.ts');
  process.exit(0);
}
const PHASE_MS = Number(process.env['PHASE_SECONDS'] ?? 40) * 1000;
const ROWS = 10_000;
const METRICS_TOKEN = 'noisy-neighbour-metrics-token';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const root = new URL('..', import.meta.url).pathname;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });

/** A service process on `port`: the bundled service over the benchmark's database. */
async function startService(databaseUrl: string, dataDir: string, port: number) {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--enable-source-maps', `${root}dist/sdcs.mjs`, 'serve'],
    {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        SDCS_DATA_DIR: `${dataDir}-${port}`,
        SDCS_BOOTSTRAP: 'false',
        SDCS_METRICS_TOKEN: METRICS_TOKEN,
        LOG_LEVEL: 'error',
        LOG_FORMAT: 'json',
        // A's exports read 24,000 values each; B's load is far below the rate limits.
        SDCS_RATE_LIMIT_PER_MINUTE: '6000',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/api/v1/health/ready`)).status === 200) return { child, base, port };
    } catch {}
    await sleep(100);
  }
  throw new Error(`service on ${port} did not start`);
}

/** prom-client's event-loop delay p99 of the last scrape interval, in ms. */
async function loopP99(base: string): Promise<number> {
  const text = await (
    await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  const m = /^sdcs_nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text);
  return m ? Number(m[1]) * 1000 : Number.NaN;
}

/** The process's peak resident set size (Linux), in MB. */
const peakRssMb = (pid: number) => {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
};

console.log('noisy-neighbour: building the service bundle');
spawnSync(process.execPath, [`${root}scripts/build.mjs`], { stdio: 'inherit' });
const { database, config, drop } = await freshDatabase('postgres');
const services = [
  await startService(config.databaseUrl!, config.dataDir, await freePort()),
  await startService(config.databaseUrl!, config.dataDir, await freePort()),
];
const base0 = services[0]!.base;

// A: 24,000 values, three viewers, the import's form and adapter. B: one site, a form of 50 elements.
const a = await organization(database, 'Noisy A');
const aSites = await seedValues(database, base0, a);
const viewers = [];
for (let i = 0; i < 3; i++) viewers.push(await member(database, a.id, 'VIEWER', aSites));
const callers = [...viewers, a.key];
const imports = await importSetup(base0, a.key, ROWS);
const b = await organization(database, 'Quiet B');
const bSite = (await must(base0, b.key, 'POST', '/sites', { name: 'Plant 1' })).id;
const keys = Array.from({ length: 50 }, (_, i) => `v${i}`);
const bForm = await must(base0, b.key, 'POST', '/forms', {
  name: 'Energy',
  periodType: 'MONTHLY',
  elements: keys.map((key) => ({ key, label: key, type: 'NUMBER' })),
});
await must(base0, b.key, 'PUT', '/form-sites', { formId: bForm.id, siteIds: [bSite], years: [2025] });
const bViewer = await member(database, b.id, 'VIEWER', []);
const importBodies = Array.from({ length: 12 }, (_, k) =>
  JSON.stringify({
    sourceAdapterDefinitionId: imports.adapter.id,
    adapterVersion: imports.adapter.adapterVersion,
    mode: 'execute',
    context: { year: 2025 },
    sheets: [{ name: 'Values', rows: imports.sheet(k + 1) }],
  }),
);

interface Phase {
  label: string;
  latencies: number[];
  errors: string[];
  ready: number[];
  loopP99: number[];
  rssMb: number;
  notes: string[];
}

/** B's steady load for `ms`: each second four reads and a 50-value submission, over both processes. */
async function bLoad(phase: Phase, ms: number) {
  const end = Date.now() + ms;
  let n = 0;
  const pending: Promise<void>[] = [];
  while (Date.now() < end) {
    const tick = Date.now();
    const requests: [string, string, string, unknown?][] = [
      [bViewer, 'GET', '/me'],
      [b.key, 'GET', '/sites'],
      [b.key, 'GET', `/form-submissions?formId=${bForm.id}&year=2025`],
      [bViewer, 'GET', '/forms'],
      [
        b.key,
        'POST',
        '/form-submissions',
        {
          formId: bForm.id,
          siteId: bSite,
          year: 2025,
          values: keys.map((elementKey) => ({ elementKey, periodUnit: (n % 12) + 1, value: n })),
        },
      ],
    ];
    for (const [credential, method, path, body] of requests) {
      const service = services[n++ % 2]!;
      pending.push(
        call(service.base, credential, method, path, body).then(
          (res) => {
            phase.latencies.push(res.ms);
            if (res.status !== 200) phase.errors.push(`${method} ${path.split('?')[0]} ${res.status}`);
          },
          (error: Error) => void phase.errors.push(`${method} ${path} ${error.message}`),
        ),
      );
    }
    // Readiness of both processes and their event loops, once a second.
    for (const s of services) {
      pending.push(
        fetch(`${s.base}/api/v1/health/ready`).then(
          (r) => void phase.ready.push(r.status),
          () => void phase.ready.push(0),
        ),
        loopP99(s.base).then(
          (v) => void phase.loopP99.push(v),
          () => undefined,
        ),
      );
    }
    await sleep(Math.max(0, 1000 - (Date.now() - tick)));
  }
  await Promise.all(pending);
}

/** Runs one phase: A's `noise` (started, then stopped when B's load ends). */
async function phase(label: string, noise: (phase: Phase) => Promise<() => Promise<void>>): Promise<Phase> {
  const p: Phase = { label, latencies: [], errors: [], ready: [], loopP99: [], rssMb: 0, notes: [] };
  const stop = await noise(p);
  await bLoad(p, PHASE_MS);
  await stop();
  p.rssMb = Math.max(...services.map((s) => peakRssMb(s.child.pid!)));
  console.log(`  ${label}: done (${p.latencies.length} requests of B)`);
  return p;
}

/** A's loop of one kind of request until stopped. */
function loopOf(body: (stopped: () => boolean) => Promise<void>) {
  let on = true;
  const done = body(() => !on);
  return async () => {
    on = false;
    await done;
  };
}

// Warm-up: compilations, connections, workers.
await bLoad({ label: 'warm', latencies: [], errors: [], ready: [], loopP99: [], rssMb: 0, notes: [] }, 5000);
const loadBefore = loadavg()[0]!;
const started = Date.now();
const phases: Phase[] = [];
phases.push(await phase('nothing', async () => async () => undefined));
phases.push(
  await phase('12 stalled exports', async (p) => {
    const stalls = await Promise.all(
      Array.from({ length: 12 }, (_, k) => stall(services[k % 2]!.port, callers[k % 4]!)),
    );
    p.notes.push(
      `A's exports: ${stalls.filter((s) => s.status === 200).length} × 200, ${stalls.filter((s) => s.status === 429).length} × 429`,
    );
    return async () => {
      for (const s of stalls) s.drop();
    };
  }),
);
phases.push(
  await phase('a 10,000-row import every 5 s', async (p) => {
    let k = 0;
    const times: number[] = [];
    const statuses: number[] = [];
    const stop = loopOf(async (stopped) => {
      const running: Promise<void>[] = [];
      while (!stopped()) {
        const service = services[k % 2]!;
        const text = importBodies[k++ % importBodies.length]!;
        running.push(
          call(service.base, a.key, 'POST', '/source-imports', text, {
            'idempotency-key': `noisy-${Date.now()}-${k}`,
          }).then((res) => {
            statuses.push(res.status);
            if (res.status === 200) times.push(res.ms);
          }),
        );
        for (let t = 0; t < 50 && !stopped(); t++) await sleep(100);
      }
      await Promise.all(running);
    });
    return async () => {
      await stop();
      p.notes.push(
        `A's imports: ${statuses.filter((s) => s === 200).length} × 200 of ${statuses.length} (${times.map((t) => (t / 1000).toFixed(1)).join(', ')} s)`,
      );
    };
  }),
);
phases.push(
  await phase('8 concurrent XLSX exports', async (p) => {
    const statuses: number[] = [];
    let bytes = 0;
    const stops = Array.from({ length: 8 }, (_, k) =>
      loopOf(async (stopped) => {
        while (!stopped()) {
          const res = await fetch(`${services[k % 2]!.base}/api/v1/exports/values?year=2025`, {
            headers: { authorization: `Bearer ${callers[k % 4]}`, accept: XLSX },
          }).catch(() => undefined);
          statuses.push(res?.status ?? 0);
          if (res?.status === 200) bytes = Math.max(bytes, (await res.arrayBuffer()).byteLength);
          else {
            await res?.arrayBuffer().catch(() => undefined);
            await sleep(1000);
          }
        }
      }),
    );
    return async () => {
      await Promise.all(stops.map((s) => s()));
      p.notes.push(
        `A's XLSX exports: ${statuses.filter((s) => s === 200).length} × 200 (${(bytes / 1e6).toFixed(1)} MB each), ${statuses.filter((s) => s === 429).length} × 429, ${statuses.filter((s) => s >= 500 || s === 0).length} other`,
      );
    };
  }),
);
const seconds = (Date.now() - started) / 1000;
const loadAfter = loadavg()[0]!;
for (const s of services) s.child.kill('SIGTERM');
await Promise.all(services.map((s) => new Promise((r) => s.child.once('exit', r))));
await drop();

const idleP99 = quantile(phases[0]!.latencies, 0.99);
console.log(
  `\nNoisy neighbour (two processes, PostgreSQL), ${new Date().toISOString().slice(0, 16)} UTC, load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)} (1 min), ${PHASE_MS / 1000} s per phase, ${seconds.toFixed(0)} s in all`,
);
console.log(
  "| what A did | B's p50 | B's p99 | p99 vs idle | B's errors | readiness | loop delay p99 (worst s) | peak RSS |",
);
console.log('|---|---|---|---|---|---|---|---|');
for (const p of phases) {
  const p99 = quantile(p.latencies, 0.99);
  const readiness = [...new Set(p.ready)].sort().join('/');
  const errors = p.errors.length
    ? `${p.errors.length} (${[...new Set(p.errors)].slice(0, 3).join('; ')})`
    : '0';
  console.log(
    `| ${p.label} | ${quantile(p.latencies, 0.5).toFixed(1)} ms | ${p99.toFixed(1)} ms | ${(p99 / idleP99).toFixed(2)}× | ${errors} | ${readiness} | ${Math.max(...p.loopP99).toFixed(0)} ms | ${p.rssMb.toFixed(0)} MB |`,
  );
}
for (const p of phases) for (const note of p.notes) console.log(`- ${p.label}: ${note}`);
