import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { scheduleEmbeddedMaintenance } from './db/maintenance.ts';
import type { Clock } from './domain/clock.ts';
import { registerAuth } from './http/auth.ts';
import { answerClientError, answerFrameworkError, registerErrorHandling } from './http/error-handler.ts';
import { heavyErrors } from './http/heavy-body.ts';
import { registerJsonBody } from './http/json-body.ts';
import { registerMetrics, watchJobs } from './http/metrics.ts';
import { compactDocument, documentPathIds, registerOpenApiTruth } from './http/openapi.ts';
import { refuseBusyUnderPressure, registerOverloadProtection } from './http/overload.ts';
import { registerRateLimits } from './http/rate-limit.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { registerSendTimeout } from './http/send-timeout.ts';
import type { Services } from './http/services.ts';
import { registerStrictQueries } from './http/strict-query.ts';
import { registerValidation } from './http/validation.ts';
import { StreamLane } from './lib/heavy/lane.ts';
import { HeavyWork } from './lib/heavy/pool.ts';
import { sealer as makeSealer } from './lib/secrets.ts';
import { createMailer, type Mailer } from './mail/mailer.ts';
import { activitiesRoutes } from './modules/activities/index.ts';
import { activityDefinitionsRoutes } from './modules/activity-definitions/index.ts';
import { apiKeysRoutes } from './modules/apikeys/index.ts';
import { authRoutes, credentialResolver, ssoRoutes } from './modules/auth/index.ts';
import { completenessRoutes } from './modules/completeness/index.ts';
import { registerDashboardPage } from './modules/dashboard-page/index.ts';
import { dashboardsRoutes, publicDashboardsRoutes, publicHead } from './modules/dashboards/index.ts';
import { datasetItemsRoutes, datasetsRoutes } from './modules/datasets/index.ts';
import { exportGateStats, exportsRoutes, exportsRunning } from './modules/exports/index.ts';
import { formLocksRoutes } from './modules/form-locks/index.ts';
import { formSitesRoutes } from './modules/form-sites/index.ts';
import { formsRoutes } from './modules/forms/index.ts';
import { healthRoutes } from './modules/health/index.ts';
import { indicatorsRoutes } from './modules/indicators/index.ts';
import { invitations, invitationsRoutes, registerAcceptPage } from './modules/invitations/index.ts';
import { JobRunner, jobs as jobQueue, MAIL_JOB, mailHandler, PRUNE_JOB } from './modules/jobs/index.ts';
import {
  CLEANUP_INTERVAL_MS,
  cleanupPendingMedia,
  MEDIA_CLEANUP_JOB,
  mediaRoutes,
} from './modules/media/index.ts';
import { membersRoutes } from './modules/members/index.ts';
import { organizationsRoutes } from './modules/organizations/index.ts';
import { sitesRoutes } from './modules/sites/index.ts';
import { acceptedImportsJob, adaptersRoutes, sourceImportsRoutes } from './modules/source-imports/index.ts';
import {
  KEY_CLEANUP_INTERVAL_MS,
  KEY_CLEANUP_JOB,
  removeExpiredKeys,
  submissionsQueueRoutes,
  submissionsRoutes,
} from './modules/submissions/index.ts';
import { targetsRoutes } from './modules/targets/index.ts';
import { unitsRoutes } from './modules/units/index.ts';
import type { SlotGuard } from './modules/values/index.ts';
import { servicePipeline } from './values-pipeline.ts';
import { registerWebApp, uploadOrigins } from './modules/web-app/index.ts';
import {
  DELIVER_JOB,
  deliveryHandler,
  PERIODS_SWEEP_INTERVAL_MS,
  PERIODS_SWEEP_JOB,
  sweepCompletedPeriods,
  webhooksRoutes,
} from './modules/webhooks/index.ts';
import { createStorage, type Storage } from './storage/index.ts';

export const API_PREFIX = '/api/v1';
/** The heavy workers' young generation (decision 0235): V8's default grows to 48 MB per thread. */
const HEAVY_YOUNG_GENERATION_BYTES = 16 * 1024 * 1024;

export interface AppDeps {
  database: Database;
  config: Config;
  logger?: FastifyServerOptions['logger'];
  /** Sends e-mail; by default SMTP when SMTP_URL is set, else `.eml` files in `<data dir>/outbox/`. */
  mailer?: Mailer;
  /** The service's notion of "now": tests inject a fixed or moving clock (expiry, due dates). */
  clock?: Clock;
  /** Where uploaded files live: by default S3 when S3_BUCKET is set, else `<data dir>/media/`. */
  storage?: Storage;
  /** Slot guards added to those app.ts registers (tests). */
  slotGuards?: SlotGuard[];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The current time as the service sees it (see `AppDeps.clock`). */
    clock: Clock;
    /** The durable job queue's worker of this process (decision 216): polls once listening; tests drain it. */
    jobs: JobRunner;
  }
}

/** A hop count trusts that many proxies nearest the service; the rest Fastify takes as it is. */
function trustedProxies(trust: Config['trustProxy']) {
  return typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;
}

const REQUEST_ID = /^[\w.-]{1,100}$/;

/** The composition root: builds the HTTP app over its dependencies, without side effects. */
export async function buildApp({
  database,
  config,
  logger = false,
  mailer = createMailer(config),
  clock = () => new Date(),
  storage = createStorage(config, API_PREFIX),
  slotGuards = [],
}: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    forceCloseConnections: 'idle',
    // Slow clients (headers or bodies trickling in) are cut off instead of holding a connection.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    maxRequestsPerSocket: config.maxRequestsPerSocket,
    http: {
      headersTimeout: config.headersTimeoutMs,
      // Node checks the two timeouts above on this interval (30 s by default).
      connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
    },
    // Behind a load balancer, the client address comes from X-Forwarded-For (SDCS_TRUST_PROXY).
    trustProxy: trustedProxies(config.trustProxy),
    ajv: { customOptions: { strict: false } },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('clock', clock);
  registerJsonBody(app);
  registerValidation(app);
  registerErrorHandling(app);
  registerStrictQueries(app, API_PREFIX);
  registerSecurityHeaders(app);
  // Every operation's statuses, headers and examples, from each route's declared access and limits.
  registerOpenApiTruth(app, API_PREFIX);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // A streamed answer (exports, downloads) whose client stops reading is cut off (SDCS_SEND_TIMEOUT_SECONDS).
  registerSendTimeout(app, config.sendTimeoutMs);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'SDCS: Sustainability Data Collection Service',
        version: '1.0.0',
        description:
          'Collect, calculate and report sustainability data. Every call acts inside the organization of its credential: send `Authorization: Bearer <access token or API key>`.',
      },
      // Every route is meant for clients outside (x-internal: false, for API inventories).
      servers: [{ url: config.publicUrl, 'x-internal': false } as { url: string }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: documentPathIds,
    transformObject: compactDocument,
  });
  // The interactive documentation is public: it only shows the OpenAPI document.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, public: true };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());

  // CPU-heavy work (large bodies; workbooks at merge time) runs in worker threads, each
  // organization within its share (decision 0177).
  const heavy = new HeavyWork({
    entry: new URL('./heavy-worker-entry.mjs', import.meta.url),
    workers: config.heavyWorkers,
    perOrganization: config.heavyPerOrganization,
    queuePerOrganization: config.heavyQueuePerOrganization,
    memoryBudgetBytes: config.heavyMemoryBytes,
    jobHeapBytes: config.heavyJobHeapBytes,
    youngGenerationBytes: HEAVY_YOUNG_GENERATION_BYTES,
    errors: heavyErrors,
    underPressure: () => (app as { isUnderPressure?: () => boolean }).isUnderPressure?.() ?? false,
  });
  app.addHook('onClose', () => heavy.close());
  // CSV and NDJSON exports: read and encoded in one worker thread, many at once (decision 0235).
  const exportLane = new StreamLane({
    entry: new URL('./export-worker-entry.mjs', import.meta.url),
    heapBytes: config.heavyJobHeapBytes,
    errors: heavyErrors,
  });
  app.addHook('onClose', () => exportLane.close());
  // A listening service on PostgreSQL starts its export threads now: a first export then neither
  // waits for a thread to start nor carries its memory (decision 0235).
  if (database?.serverUrl && config.prestartWorkers)
    app.addHook('onListen', async () => {
      exportLane.warm();
      heavy.warm();
    });
  // Exports are load too (decision 205): under pressure, an exporting organization is refused first.
  const load = {
    any: () => !heavy.idle() || exportsRunning(),
    busy: (org: string) => heavy.busy(org) || exportsRunning(org),
  };
  const metrics = registerMetrics(app, database, config.metricsToken, exportGateStats, () => heavy.stats());
  await registerOverloadProtection(app, config, metrics, load);
  const credentialRefusals: { count?: (request: FastifyRequest, reply: FastifyReply) => Promise<void> } = {};
  registerAuth(app, credentialResolver(database, config, clock), database, credentialRefusals);
  refuseBusyUnderPressure(app, load, metrics);
  credentialRefusals.count = await registerRateLimits(app, {
    authAttemptsPerMinute: config.authAttemptsPerMinute,
    requestsPerMinute: config.rateLimitPerMinute,
    orgRequestsPerMinute: config.orgRateLimitPerMinute,
    redisUrl: config.redisUrl,
    metrics,
  });
  app.addHook('onClose', async () => {
    await mailer.close?.();
  });
  // Background work on the durable job queue (decisions 216, 232): webhook deliveries, e-mails,
  // media and key clean-up, pruning of finished jobs.
  const jobs = new JobRunner(database, clock, { pollMs: config.jobsPollMs, leaseMs: config.jobsLeaseMs });
  const webhookSecrets = makeSealer(config.secret, 'webhook-secrets');
  jobs.handle(
    DELIVER_JOB,
    deliveryHandler({
      database,
      clock,
      sealer: webhookSecrets,
      mailer,
      log: app.log,
      publicUrl: config.publicUrl,
      timeoutMs: config.webhooksTimeoutMs,
      allowPrivate: config.webhooksAllowPrivate,
    }),
  );
  // Abandoned uploads are cleaned once an hour, by one of the processes (a recurring job).
  jobs.every(MEDIA_CLEANUP_JOB, CLEANUP_INTERVAL_MS, async () => {
    const removed = await cleanupPendingMedia(database, storage, clock());
    if (removed > 0) app.log.info({ removed }, 'removed abandoned pending uploads');
  });
  // Finished jobs older than a week go, hourly, by one process.
  jobs.every(PRUNE_JOB, 3_600_000, () => jobs.prune());
  // Reminder and rejection e-mails, queued by the requests that decide them (decision 232).
  jobs.handle(MAIL_JOB, mailHandler(mailer));
  // Idempotency-Keys of POST /form-submissions older than 24 hours go, hourly (decisions 194, 232).
  jobs.every(KEY_CLEANUP_JOB, KEY_CLEANUP_INTERVAL_MS, async () => {
    const removed = await removeExpiredKeys(database, clock());
    if (removed > 0) app.log.info({ removed }, 'removed expired submission idempotency keys');
  });
  // Completed periods that no write announced (decision 223), within a minute, by one process.
  jobs.every(PERIODS_SWEEP_JOB, PERIODS_SWEEP_INTERVAL_MS, async () => {
    await sweepCompletedPeriods(database);
  });
  app.decorate('jobs', jobs);
  watchJobs(metrics, () => database.unscoped((db) => jobQueue.counts(db)));

  // Element types as handlers and the slot guards (period locks, then `slotGuards`), built as a
  // heavy worker builds them for a large import (values-pipeline.ts, decision 0233).
  const pipeline = servicePipeline(config.calcRequestBudgetMs, slotGuards);

  // One typed set of services for every route plugin (decision 231).
  const services: Services = {
    database,
    config,
    clock,
    mailer,
    storage,
    heavy,
    exportLane,
    webhookSealer: webhookSecrets,
    pipeline,
    // Large imports run in a heavy worker on PostgreSQL, which builds the same pipeline (no slot
    // guard added by a test: those exist only here) on its own connection (decision 0233).
    importsOffLoop:
      // (`database?`: the OpenAPI unit tests build the app without one.)
      database?.serverUrl && slotGuards.length === 0
        ? {
            databaseUrl: database.serverUrl,
            minRows: config.importWorkerRows,
            calcRequestBudgetMs: config.calcRequestBudgetMs,
          }
        : undefined,
    acceptInvitation: invitations.acceptFor,
  };
  // Imports answered 202 are jobs of the queue (decision 0234); a stopping service undoes the
  // ones it runs and leaves them to run again.
  const acceptedImports = acceptedImportsJob(services, (e) =>
    app.log.error({ err: e }, 'source import failed while writing'),
  );
  jobs.handle(acceptedImports.kind, acceptedImports.handler);
  const routePlugins = [
    healthRoutes,
    authRoutes,
    ssoRoutes,
    apiKeysRoutes,
    activityDefinitionsRoutes,
    organizationsRoutes,
    membersRoutes,
    invitationsRoutes,
    unitsRoutes,
    datasetsRoutes,
    datasetItemsRoutes,
    sitesRoutes,
    formsRoutes,
    formSitesRoutes,
    submissionsRoutes,
    submissionsQueueRoutes,
    activitiesRoutes,
    mediaRoutes,
    adaptersRoutes,
    sourceImportsRoutes,
    indicatorsRoutes,
    targetsRoutes,
    completenessRoutes,
    formLocksRoutes,
    dashboardsRoutes,
    publicDashboardsRoutes,
    exportsRoutes,
    webhooksRoutes,
  ];
  await app.register(
    async (api) => {
      for (const plugin of routePlugins) await api.register(plugin, services);
    },
    { prefix: API_PREFIX },
  );
  app.get('/health', { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.redirect(`${API_PREFIX}/health`),
  );
  // The service's front door: the interactive documentation.
  app.get('/', { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.redirect('/docs'),
  );
  registerAcceptPage(app);
  // The public dashboard page /d/{id} and its static files /assets/… (outside the API).
  registerDashboardPage(app, {
    apiPrefix: API_PREFIX,
    publicUrl: config.publicUrl,
    lookup: (id) => publicHead(database, id),
  });
  // The reporting web app /app and its files /app/assets/… (outside the API, talks to it).
  registerWebApp(app, { apiPrefix: API_PREFIX, connectOrigins: uploadOrigins(config) });
  // Each process claims due jobs every SDCS_JOBS_POLL_MS once it listens (not in in-process tests).
  let stopJobs: (() => void) | undefined;
  app.addHook('onListen', async () => {
    stopJobs ??= jobs.start(app.log);
  });
  app.addHook('onClose', async () => {
    stopJobs?.();
    acceptedImports.stop();
    await jobs.idle();
  });
  // The embedded database has no autovacuum: the service checks its tables every minute.
  let stopUpkeep: (() => void) | undefined;
  app.addHook('onListen', async () => {
    stopUpkeep ??= scheduleEmbeddedMaintenance(database, app.log);
  });
  app.addHook('onClose', async () => stopUpkeep?.());

  return app;
}
