import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/client.ts';
import { unauthorized } from '../domain/errors.ts';
import type { HeavyStats } from '../lib/heavy/pool.ts';
import { sandboxStats } from '../sandbox/index.ts';

/** The service's Prometheus metrics; one registry per app (tests build many apps in one process). */
export interface Metrics {
  registry: Registry;
  /** A request refused by a limit: `rate_limit` (per credential), `organization_rate_limit`, `auth_attempts`, `overload`. */
  refused: Counter<'reason'>;
}

/** What the export gates have counted (the exports module's `exportGateStats`, given by the app). */
export interface ExportFigures {
  running: number;
  refused: Record<'caller' | 'organization' | 'capacity', number>;
}

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * Counts requests by route and status, times them, and reads the pool's use when scraped.
 * `GET /metrics` is served only when a token is configured, to callers that send it as
 * `Authorization: Bearer <token>` (the API's credentials do not open it).
 */
export function registerMetrics(
  app: FastifyInstance,
  database: Database,
  token: string | undefined,
  exportFigures: () => ExportFigures = () => ({
    running: 0,
    refused: { caller: 0, organization: 0, capacity: 0 },
  }),
  heavy?: () => HeavyStats,
): Metrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'sdcs_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'sdcs_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its answer, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const refused = new Counter({
    name: 'sdcs_requests_refused_total',
    help: 'Requests refused by a limit: rate_limit (per credential), organization_rate_limit, auth_attempts, overload',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const pool = (name: string, help: string, pick: (s: ReturnType<Database['poolStats']>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(pick(database.poolStats()));
      },
    });
  pool('sdcs_db_pool_connections', 'Database connections open', (s) => s.size);
  pool('sdcs_db_pool_in_use', 'Database connections checked out by requests', (s) => s.inUse);
  pool('sdcs_db_pool_waiting', 'Requests waiting for a database connection', (s) => s.waiting);
  // The stream pool: connections of their own for exports (on PGlite the one connection, as above).
  const streamPool = (name: string, help: string, pick: (s: ReturnType<Database['poolStats']>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(pick(database.streamPoolStats()));
      },
    });
  streamPool('sdcs_db_stream_pool_connections', 'Stream pool connections open (exports)', (s) => s.size);
  streamPool('sdcs_db_stream_pool_in_use', 'Stream pool connections held by running exports', (s) => s.inUse);
  streamPool('sdcs_db_stream_pool_waiting', 'Exports waiting for a stream pool connection', (s) => s.waiting);
  new Gauge({
    name: 'sdcs_exports_running',
    help: 'Exports running in this process (each holds a place at the export gate)',
    registers: [registry],
    collect() {
      this.set(exportFigures().running);
    },
  });
  // Counted since this app started: the gates' figures are per process, so the start is the base.
  const refusedAtStart = exportFigures().refused;
  new Counter({
    name: 'sdcs_exports_refused_total',
    help: 'Exports refused before reading anything: caller (the per-caller cap, 429), organization (the per-organization cap, 429), capacity (every stream place taken, 503)',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      const now = exportFigures().refused;
      this.reset();
      for (const reason of ['caller', 'organization', 'capacity'] as const)
        this.inc({ reason }, Math.max(0, now[reason] - refusedAtStart[reason]));
    },
  });
  new Gauge({
    name: 'sdcs_sandbox_queue_length',
    help: 'Calculations waiting for a sandbox worker, over all organizations',
    registers: [registry],
    collect() {
      this.set(sandboxStats().waiting);
    },
  });
  new Gauge({
    name: 'sdcs_sandbox_workers',
    help: 'Sandbox worker threads running',
    registers: [registry],
    collect() {
      this.set(sandboxStats().workers);
    },
  });

  if (heavy) {
    const gauge = (name: string, help: string, pick: (s: HeavyStats) => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(pick(heavy()));
        },
      });
    gauge('sdcs_heavy_workers', 'Heavy-work worker threads running', (s) => s.workers);
    gauge(
      'sdcs_heavy_jobs_active',
      'Heavy jobs (large bodies, workbooks) running in workers',
      (s) => s.active,
    );
    gauge(
      'sdcs_heavy_jobs_queued',
      'Heavy jobs waiting for their organization’s turn or for memory',
      (s) => s.queued,
    );
    gauge(
      'sdcs_heavy_memory_reserved_bytes',
      'Memory the running heavy jobs reserved of the budget',
      (s) => s.memoryReservedBytes,
    );
  }

  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL, so that ids do not make a series each.
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });

  if (token) {
    collectDefaultMetrics({ register: registry, prefix: 'sdcs_' });
    app.get(
      '/metrics',
      { config: { public: true, rateLimit: false }, schema: { hide: true } },
      async (request, reply) => {
        const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
        if (!given || !sameToken(given, token))
          throw unauthorized('Send the metrics token as a bearer token');
        return reply.type(registry.contentType).send(await registry.metrics());
      },
    );
  }
  return { registry, refused };
}

/** Jobs of the durable queue by kind and state (decision 216), counted in the database when scraped. */
export function watchJobs(
  metrics: Metrics,
  figures: () => Promise<{ kind: string; state: string; count: number }[]>,
): void {
  new Gauge({
    name: 'sdcs_jobs',
    help: 'Jobs of the durable queue by kind and state (queued, running, done, failed); done and failed ones are kept 7 days',
    labelNames: ['kind', 'state'] as const,
    registers: [metrics.registry],
    async collect() {
      this.reset();
      for (const row of await figures()) this.set({ kind: row.kind, state: row.state }, row.count);
    },
  });
}
