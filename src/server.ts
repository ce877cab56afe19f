import type { FastifyInstance } from 'fastify';
import pretty from 'pino-pretty';
import { buildApp } from './app.ts';
import { type Config, trustProxyWarning } from './config.ts';
import { Database } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { bootstrapIfEmpty } from './modules/organizations/index.ts';
import {
  configureSandboxLimits,
  configureSandboxWorkers,
  shutdownSandbox,
  warmSandbox,
} from './sandbox/index.ts';

/** Where the embedded database lives in the data directory. */
export const embeddedDataDir = (config: Config) => `${config.dataDir}/pglite`;

/** Opens the configured database: the server at DATABASE_URL, else PGlite in the data directory. */
export function openConfiguredDatabase(config: Config): Promise<Database> {
  return Database.open({
    databaseUrl: config.databaseUrl,
    dataDir: embeddedDataDir(config),
    poolSize: config.dbPoolSize,
    streamPoolSize: config.dbStreamPoolSize,
  });
}

/** How often a start on the embedded database says it is still opening. */
const OPENING_TICK_MS = 5_000;

/**
 * Tells the person who starts the service that the embedded database is opening, every few
 * seconds how long it has taken, and when it is open: PGlite loads a whole PostgreSQL (WebAssembly)
 * first, which takes a few seconds, and tens of seconds on a busy machine. On stderr, so that
 * stdout keeps only log lines and the first-start message. Nothing for a PostgreSQL server.
 */
function embeddedOpeningProgress(config: Config): () => void {
  if (config.databaseUrl) return () => undefined;
  const since = performance.now();
  const seconds = () => ((performance.now() - since) / 1000).toFixed(0);
  process.stderr.write(`Opening the embedded database in ${embeddedDataDir(config)}…\n`);
  const tick = setInterval(
    () => process.stderr.write(`  still opening the embedded database (${seconds()} s)\n`),
    OPENING_TICK_MS,
  );
  tick.unref();
  return () => {
    clearInterval(tick);
    process.stderr.write(
      `Embedded database opened in ${((performance.now() - since) / 1000).toFixed(1)} s\n`,
    );
  };
}

/** Readable log lines on a terminal (or when asked); JSON lines for log collectors otherwise. */
const prettyLogs = (config: Config) =>
  config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true);

/**
 * Starts the service: database, migrations, first-run bootstrap, HTTP listener, and a
 * graceful stop on SIGTERM/SIGINT (in-flight requests finish, then the database closes).
 */
export async function serve(config: Config): Promise<FastifyInstance> {
  const started = performance.now();
  configureSandboxLimits({ cpuTimeMs: config.calcTimeMs, memoryBytes: config.calcMemoryBytes });
  configureSandboxWorkers(config.calcWorkers);
  // Start the calculation workers now, in parallel, so the first calculation does not wait for them.
  void warmSandbox().catch(() => undefined);
  const phases: Record<string, number> = { loadMs: Math.round(started) };
  const mark = (name: string, since: number) => {
    phases[name] = Math.round(performance.now() - since);
    return performance.now();
  };
  let t = performance.now();
  const opened = embeddedOpeningProgress(config);
  const database = await openConfiguredDatabase(config);
  opened();
  t = mark('openDatabaseMs', t);
  await migrate(database);
  t = mark('migrateMs', t);
  const app = await buildApp({
    database,
    config,
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization'],
      ...(prettyLogs(config) ? { stream: pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l' }) } : {}),
    },
  });
  t = mark('buildAppMs', t);
  const welcome = await bootstrapIfEmpty(database, config);
  t = mark('bootstrapMs', t);
  await app.listen({ port: config.port, host: config.host });
  mark('listenMs', t);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  app.log.info(
    { database: database.engine, startupMs: Math.round(performance.now() - started), ...phases },
    `SDCS listening on ${base} (web app ${base}/app, API ${base}/api/v1, docs ${base}/docs)`,
  );
  const proxyWarning = trustProxyWarning(config);
  if (proxyWarning) app.log.warn({ trustProxy: config.trustProxy }, proxyWarning);
  if (welcome) process.stdout.write(welcome(base));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    try {
      await app.close();
      await database.close();
      await shutdownSandbox();
    } finally {
      process.exit(0);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  return app;
}
