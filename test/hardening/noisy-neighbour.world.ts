// The noisy-neighbour scenario of issue 41 (item 1), shared by its test and its benchmark (so it
// imports nothing of vitest): organization A holds 12 stalled exports (real HTTP clients that read
// the first chunk and stop) and runs 10,000-row source imports, while organization B sends a mix
// of reads and a submission. B's latencies are sampled idle, then under A's noise, in blocks.
import { request as httpRequest } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../../src/db/client.ts';
import { newAccessToken, sha256Hex } from '../../src/lib/secrets.ts';
import { createOrganizationWithKey } from '../../src/modules/organizations/bootstrap.ts';

const API = '/api/v1';

/** One HTTP call over loopback (keep-alive), its status, body and wall time; a string body is sent as is. */
export async function call(
  base: string,
  credential: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${base}${API}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${credential}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  return { status: res.status, body: text ? JSON.parse(text) : undefined, ms };
}

/** Like `call`, but throws unless the answer is 200 (setting up). */
export async function must(base: string, credential: string, method: string, path: string, body?: unknown) {
  const res = await call(base, credential, method, path, body);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A member of `role` with an access token (stored directly, as the test factories do). */
export async function member(database: Database, organizationId: string, role: string, siteIds: string[]) {
  const token = newAccessToken();
  await database.system(async (tx) => {
    const user = await tx
      .insertInto('users')
      .values({
        email: `${role.toLowerCase()}-${token.slice(-10)}@example.com`,
        name: role,
        password_hash: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx
      .insertInto('memberships')
      .values({ organization_id: organizationId, user_id: user.id, role: role as 'VIEWER' })
      .execute();
    await tx
      .insertInto('access_tokens')
      .values({
        organization_id: organizationId,
        user_id: user.id,
        token_hash: sha256Hex(token),
        expires_at: new Date(Date.now() + 3_600_000),
      })
      .execute();
    if (siteIds.length)
      await tx
        .insertInto('membership_sites')
        .values(siteIds.map((site_id) => ({ organization_id: organizationId, user_id: user.id, site_id })))
        .execute();
  });
  return token;
}

export async function organization(database: Database, name: string) {
  const created = await createOrganizationWithKey(database, {
    organizationName: name,
    email: `owner-${name.toLowerCase().replace(/\W/g, '')}-${Date.now()}@example.com`,
    name: 'Owner',
    password: null,
  });
  if (!created) throw new Error('organization not created');
  return { id: created.organization.id, ownerId: created.user.id, key: created.apiKey };
}

/** 40 sites x 50 elements x 12 months of 2025 values, in SQL: 24,000 values (~8 MB of CSV). */
export async function seedValues(
  database: Database,
  base: string,
  org: { id: string; ownerId: string; key: string },
) {
  const form = await must(base, org.key, 'POST', '/forms', {
    name: 'Bulk',
    periodType: 'MONTHLY',
    elements: Array.from({ length: 50 }, (_, i) => ({ key: `e${i}`, label: `Element ${i}`, type: 'NUMBER' })),
  });
  const elementIds = (form.elements as { id: string }[]).map((e) => e.id);
  return database.system(async (tx) => {
    await sql`select set_config('app.organization_id', ${org.id}, true)`.execute(tx);
    await sql`insert into sites (organization_id, name, metadata, address)
              select ${org.id}, 'Bulk ' || p, '{}', '{}' from generate_series(1, 40) p`.execute(tx);
    await sql`insert into form_sites (organization_id, form_id, site_id, year)
              select ${org.id}, ${form.id}::uuid, id, 2025 from sites
               where organization_id = ${org.id} and name like 'Bulk %'`.execute(tx);
    await sql`insert into form_submissions (organization_id, form_site_id, user_id)
              select ${org.id}, id, ${org.ownerId}::uuid from form_sites
               where organization_id = ${org.id} and form_id = ${form.id}::uuid`.execute(tx);
    await sql`insert into form_element_submissions
                (organization_id, form_submission_id, element_id, period_unit, value, numeric_value, user_id, site_id, year)
              select ${org.id}, s.id, e.id, m, to_jsonb(m), m, ${org.ownerId}::uuid, fs.site_id, fs.year
                from form_submissions s join form_sites fs on fs.id = s.form_site_id
                cross join unnest(${elementIds}::uuid[]) e(id)
                cross join generate_series(1, 12) m
               where s.organization_id = ${org.id} and fs.form_id = ${form.id}::uuid`.execute(tx);
    const ids = await sql<{ id: string }>`select id from sites
                 where organization_id = ${org.id} and name like 'Bulk %'`.execute(tx);
    return ids.rows.map((r) => r.id);
  });
}

/** A: an import form of 84 NUMBER elements on 10 sites by code, and an adapter; the 10,000 rows. */
export async function importSetup(base: string, key: string, rows: number) {
  const sites: string[] = [];
  for (let s = 0; s < 10; s++)
    sites.push((await must(base, key, 'POST', '/sites', { name: `Imp ${s}`, code: `I${s}` })).id);
  const elements = Math.ceil(rows / 120);
  const form = await must(base, key, 'POST', '/forms', {
    name: 'Imported',
    periodType: 'MONTHLY',
    elements: Array.from({ length: elements }, (_, i) => ({ key: `m${i}`, label: `M${i}`, type: 'NUMBER' })),
  });
  await must(base, key, 'PUT', '/form-sites', { formId: form.id, siteIds: sites, years: [2025] });
  const adapter = await must(base, key, 'POST', '/source-adapter-definitions', {
    name: 'noisy',
    mapping: {
      sheets: [
        {
          sheet: 'Values',
          draft: 'form_value',
          form: { id: form.id },
          site: { column: 'Site', match: 'code' },
          period: { column: 'Month' },
          element: { column: 'Metric' },
          value: { column: 'Amount' },
        },
      ],
    },
  });
  /** The rows of import number `n`: every amount differs from the last import's, so all are written. */
  const sheet = (n: number) =>
    Array.from({ length: rows }, (_, i) => ({
      Site: `I${i % 10}`,
      Month: (Math.floor(i / 10) % 12) + 1,
      Metric: `m${Math.floor(i / 120)}`,
      Amount: i + n / 10,
    }));
  return { adapter, sheet };
}

/** A download that reads its first chunk and stops reading; `status` as answered. */
export function stall(port: number, credential: string): Promise<{ status: number; drop: () => void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        port,
        host: '127.0.0.1',
        path: `${API}/exports/values?year=2025`,
        agent: false,
        headers: { authorization: `Bearer ${credential}` },
      },
      (res) => {
        res.on('error', () => undefined);
        const drop = () => req.destroy();
        if (res.statusCode !== 200) {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, drop }));
          return;
        }
        res.once('data', () => {
          res.pause();
          resolve({ status: 200, drop });
        });
      },
    );
    req.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
    req.end();
  });
}

/** The `q` quantile of `samples` (nearest rank). */
export function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((x, y) => x - y);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

export const median = (values: number[]) => quantile(values, 0.5);

export interface Block {
  p50: number;
  p99: number;
}

export interface NoisyResult {
  /** B's blocks with A idle. */
  idle: Block[];
  /** B's blocks while A holds its stalled exports. */
  exportsOnly: Block[];
  /** B's blocks while A holds its stalled exports and imports. */
  noisy: Block[];
  /** B's answers other than 200, as `METHOD path status`. */
  failures: string[];
  /** B's requests in all. */
  requests: number;
  /** The statuses of A's 12 exports (the last noisy block's). */
  exportStatuses: number[];
  /** Export cursors idle in transaction while A's clients stalled (PostgreSQL; the least seen). */
  stalledCursors: number;
  /** A's imports finished during the noisy blocks, and their times. */
  imports: { done: number; ms: number[]; failed: number };
  /** `/health/ready` statuses sampled during the noise. */
  ready: number[];
  /** The event loop's longest delay in each idle and noisy block (what the imports block it for). */
  loopDelayMaxMs: { idle: number[]; exportsOnly: number[]; noisy: number[] };
}

/**
 * Runs the scenario on a listening `app` over `database`: `blocks` turns of three blocks of
 * `rounds` rounds of B's four requests (GET /me, GET /sites, GET /form-submissions, POST
 * /form-submissions): A idle; A holding 12 stalled exports; A holding them and running imports of
 * `rows` rows back to back.
 */
export async function noisyNeighbour(
  app: FastifyInstance,
  database: Database,
  port: number,
  {
    blocks = 3,
    rounds = 25,
    rows = 10_000,
    log = (_line: string): void => undefined,
  }: { blocks?: number; rounds?: number; rows?: number; log?: (line: string) => void } = {},
): Promise<NoisyResult> {
  const base = `http://127.0.0.1:${port}`;
  void app;
  // A: 24,000 values, three viewers limited to their sites, and the import's form and adapter.
  const a = await organization(database, 'Noisy A');
  const aSites = await seedValues(database, base, a);
  const viewers = [
    await member(database, a.id, 'VIEWER', aSites),
    await member(database, a.id, 'VIEWER', aSites),
    await member(database, a.id, 'VIEWER', aSites),
  ];
  const imports = await importSetup(base, a.key, rows);
  // B: one site, a monthly form of three elements, a first submission.
  const b = await organization(database, 'Quiet B');
  const bSite = (await must(base, b.key, 'POST', '/sites', { name: 'Plant 1' })).id;
  const bForm = await must(base, b.key, 'POST', '/forms', {
    name: 'Energy',
    periodType: 'MONTHLY',
    elements: ['gas', 'power', 'water'].map((key) => ({ key, label: key, type: 'NUMBER' })),
  });
  await must(base, b.key, 'PUT', '/form-sites', { formId: bForm.id, siteIds: [bSite], years: [2025] });
  const bViewer = await member(database, b.id, 'VIEWER', []);
  let n = 0;
  const failures: string[] = [];
  let requests = 0;
  const round = async (latencies: number[]) => {
    n++;
    const calls: [string, string, string, unknown?][] = [
      [bViewer, 'GET', '/me'],
      [b.key, 'GET', '/sites'],
      [b.key, 'GET', `/form-submissions?formId=${bForm.id}&year=2025`],
      [
        b.key,
        'POST',
        '/form-submissions',
        {
          formId: bForm.id,
          siteId: bSite,
          year: 2025,
          values: [{ elementKey: ['gas', 'power', 'water'][n % 3], periodUnit: (n % 12) + 1, value: n }],
        },
      ],
    ];
    for (const [credential, method, path, body] of calls) {
      const res = await call(base, credential, method, path, body);
      requests++;
      latencies.push(res.ms);
      if (res.status !== 200) failures.push(`${method} ${path} ${res.status}`);
    }
  };
  const block = async () => {
    const latencies: number[] = [];
    for (let r = 0; r < rounds; r++) await round(latencies);
    return { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
  };

  for (let r = 0; r < 10; r++) await round([]); // warm-up: first compilations, connections

  const callers = [...viewers, a.key];
  const running200 = (statuses: number[]) => statuses.filter((st) => st === 200).length;
  const cursors = () =>
    database.system(async (tx) => {
      const res = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and state = 'idle in transaction' and query ilike 'fetch forward%'
          and now() - state_change > interval '500 milliseconds'`.execute(tx);
      return res.rows[0]!.n;
    });
  /**
   * The import bodies' JSON text, made before B is measured: A's client runs in the service's
   * process here, and making a 10,000-row body (~20 ms under load) would hold the loop that B is
   * measured on, which a real client elsewhere would not. (Each body differs: every import writes.)
   */
  const importText = (k: number) =>
    JSON.stringify({
      sourceAdapterDefinitionId: imports.adapter.id,
      adapterVersion: imports.adapter.adapterVersion,
      mode: 'execute',
      context: { year: 2025 },
      sheets: [{ name: 'Values', rows: imports.sheet(k) }],
    });
  const importTexts = Array.from({ length: blocks * 8 }, (_, k) => importText(k + 1));
  const importTimes: number[] = [];
  let importFailures = 0;
  let imported = 0;
  /** Imports of `rows` rows, one after another, until `stop()`; then waits for the one running. */
  const importLoop = () => {
    let on = true;
    const done = (async () => {
      while (on) {
        imported++;
        const res = await call(
          base,
          a.key,
          'POST',
          '/source-imports',
          importTexts[imported - 1] ?? importText(imported),
          { 'idempotency-key': `noisy-${Date.now()}-${imported}` },
        );
        if (res.status === 200 && res.body.counts?.imported > 0) importTimes.push(res.ms);
        else importFailures++;
      }
    })();
    return async () => {
      on = false;
      await done;
    };
  };

  // Idle, exports-only and noisy blocks take turns, so that the machine's own load (shared,
  // drifting) weighs on all alike. The event loop's longest delay is sampled in each block (the
  // imports run on the service's own loop).
  const idle: Block[] = [];
  const exportsOnly: Block[] = [];
  const noisyBlocks: Block[] = [];
  const ready: number[] = [];
  let exportStatuses: number[] = [];
  let stalledCursors = database.engine === 'postgres' ? Number.POSITIVE_INFINITY : -1;
  const loop = { idle: [] as number[], exportsOnly: [] as number[], noisy: [] as number[] };
  const measured = async (into: Block[], delays: number[]) => {
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    into.push(await block());
    delay.disable();
    delays.push(delay.max / 1e6);
  };
  for (let i = 0; i < blocks; i++) {
    await measured(idle, loop.idle);
    // The noise: 12 stalled exports from four of A's callers (three viewers and the API key)…
    const stalls = await Promise.all(Array.from({ length: 12 }, (_, k) => stall(port, callers[k % 4]!)));
    exportStatuses = stalls.map((st) => st.status);
    let stopImports = async (): Promise<void> => undefined;
    try {
      if (database.engine === 'postgres') {
        // The exports that run settle on their cursors: idle in transaction, no page fetched for half
        // a second (their clients' buffers are full and they wait for them).
        let held = 0;
        for (let k = 0; k < 200; k++) {
          held = await cursors();
          if (held >= running200(exportStatuses)) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        stalledCursors = Math.min(stalledCursors, held);
      }
      await measured(exportsOnly, loop.exportsOnly);
      ready.push((await fetch(`${base}${API}/health/ready`)).status);
      // …and imports back to back, for as long as B is measured.
      stopImports = importLoop();
      // Let the import get going before B is measured.
      await new Promise((r) => setTimeout(r, 200));
      await measured(noisyBlocks, loop.noisy);
      ready.push((await fetch(`${base}${API}/health/ready`)).status);
    } finally {
      await stopImports();
      for (const st of stalls) st.drop();
    }
    log(
      `round ${i + 1}: idle ${JSON.stringify(idle[i])}, exports ${JSON.stringify(exportsOnly[i])}, exports+imports ${JSON.stringify(noisyBlocks[i])}`,
    );
  }
  const ms = (list: number[]) => list.map(Math.round).join(', ');
  log(
    `event loop max delay per block, ms: idle ${ms(loop.idle)}; exports ${ms(loop.exportsOnly)}; exports+imports ${ms(loop.noisy)}`,
  );
  return {
    idle,
    exportsOnly,
    noisy: noisyBlocks,
    failures,
    requests,
    exportStatuses,
    stalledCursors,
    imports: { done: importTimes.length, ms: importTimes, failed: importFailures },
    ready,
    loopDelayMaxMs: loop,
  };
}
