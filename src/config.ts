import { createPrivateKey, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';

/** Everything the service reads from its environment, parsed and checked once. */
export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  allowSignup: boolean;
  adminEmails: ReadonlySet<string>;
  smtpUrl: string | undefined;
  mailFrom: string;
  secret: string;
  /**
   * The Ed25519 private key (PEM, PKCS#8) that signs audit packs (SDCS_SIGNING_KEY: the PEM itself
   * or the path of a file holding it); unset: derived from `secret` (decision 174).
   */
  signingKey: string | undefined;
  tokenTtlSeconds: number;
  bodyLimitBytes: number;
  largeBodyLimitBytes: number;
  bootstrap: boolean;
  logLevel: string;
  /** `pretty` lines for people, `json` lines for machines; `auto`: pretty on a terminal. */
  logFormat: 'auto' | 'pretty' | 'json';
  /** Sign-up, login and invitation-acceptance attempts per client address and minute. */
  authAttemptsPerMinute: number;
  /** Limits of one calcCode calculation. */
  calcTimeMs: number;
  calcMemoryBytes: number;
  /** Wall time one request may spend calculating, in all (SDCS_CALC_REQUEST_BUDGET_MS). */
  calcRequestBudgetMs: number;
  /** Sandbox worker threads (SDCS_CALC_WORKERS; default min(2, cores)). */
  calcWorkers: number;
  /** The heavy-work pool (decision 0177): worker threads, per-organization share, memory budget. */
  heavyWorkers: number;
  heavyPerOrganization: number;
  heavyQueuePerOrganization: number;
  heavyMemoryBytes: number;
  heavyJobHeapBytes: number;
  /**
   * Start the export lane's worker and one heavy worker when the service listens on PostgreSQL
   * (decision 0235), instead of with the first export.
   */
  prestartWorkers: boolean;
  /** Serves `/metrics` (Prometheus) to callers bearing this token; unset: no metrics route. */
  metricsToken: string | undefined;
  /** Requests per credential (or client address without one) and minute; 0 turns it off. */
  rateLimitPerMinute: number;
  /**
   * Which proxies' `X-Forwarded-For` gives the client address (SDCS_TRUST_PROXY): false (the
   * socket's address), true (any), a hop count, or addresses/CIDRs. Attempt limits count per
   * client address, so behind a load balancer they need it.
   */
  trustProxy: boolean | number | string;
  /**
   * Slow clients: a request must arrive whole within `requestTimeoutMs` and its headers within
   * `headersTimeoutMs`; an idle kept-alive connection closes after `keepAliveTimeoutMs`, and one
   * connection serves at most `maxRequestsPerSocket` requests (408 / close otherwise).
   */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxRequestsPerSocket: number;
  /** Rate-limit counters live in this Redis when set (shared by several processes), else in memory. */
  redisUrl: string | undefined;
  /** Over these the service answers 503 rather than queue more work (0 turns a check off). */
  maxEventLoopDelayMs: number;
  maxHeapUsedBytes: number;
  /** Uploads: the largest file, the per-organization quota (null: unlimited), allowed types. */
  mediaMaxBytes: number;
  mediaQuotaBytes: number | null;
  /** Allowed file name extensions (lowercase, no dot) and the one content type of each. */
  mediaTypes: ReadonlyMap<string, string>;
  /** File storage in S3 (or an S3-compatible store) when S3_BUCKET is set; else local disk. */
  s3: S3Config | undefined;
  /** PostgreSQL: connections serving requests (SDCS_DB_POOL_SIZE). */
  dbPoolSize: number;
  /**
   * PostgreSQL: connections of their own for long reads, i.e. exports (SDCS_DB_STREAM_POOL_SIZE);
   * also the number of exports the process runs at once (each holds at most one).
   */
  dbStreamPoolSize: number;
  /**
   * A streamed answer whose client accepts no byte for this long is cut off, and what it held is
   * released (SDCS_SEND_TIMEOUT_SECONDS).
   */
  sendTimeoutMs: number;
  /** Exports running at once per caller (user or API key) and per organization; beyond: 429. */
  exportsPerCaller: number;
  exportsPerOrganization: number;
  /**
   * Wrong passwords for one account (e-mail) and for one gated dashboard, from any client
   * addresses, before each further attempt must wait a doubling delay (1 s, 2 s, 4 s, … up to
   * `attemptBackoffMaxSeconds`); the count starts again after `attemptBudgetQuietMinutes` without
   * attempts. See decision 0154.
   */
  accountAttemptBudget: number;
  dashboardAttemptBudget: number;
  attemptBackoffMaxSeconds: number;
  attemptBudgetQuietMinutes: number;
  /** Requests per organization and minute, all its credentials together; 0 turns it off (decision 0155). */
  orgRateLimitPerMinute: number;
  /** Live (unrevoked, unexpired) API keys one organization may hold (decision 0155). */
  maxApiKeysPerOrganization: number;
  /**
   * OIDC sign-in (decision 220): identity providers may be reached over plain http (never in
   * production; for a provider on the same host in tests and trials), SDCS_OIDC_ALLOW_HTTP.
   */
  oidcAllowHttp: boolean;
  /** How long a started OIDC sign-in may take at the provider, in seconds (SDCS_OIDC_LOGIN_TTL_SECONDS). */
  oidcLoginTtlSeconds: number;
  /** How long the provider may take to answer one request, in milliseconds (SDCS_OIDC_TIMEOUT_MS). */
  oidcTimeoutMs: number;
  /** Webhook endpoints may be on private or loopback addresses (SDCS_WEBHOOKS_ALLOW_PRIVATE; decision 218). */
  webhooksAllowPrivate: boolean;
  /** How long one webhook delivery attempt may take, connection to answer (SDCS_WEBHOOKS_TIMEOUT_SECONDS). */
  webhooksTimeoutMs: number;
  /** How often each process looks for due jobs (SDCS_JOBS_POLL_MS; decision 216). */
  jobsPollMs: number;
  /**
   * How long a claimed job is its process's before another may claim it (SDCS_JOBS_LEASE_SECONDS);
   * a running job's lease is renewed while its process lives (decision 0234).
   */
  jobsLeaseMs: number;
  /**
   * On PostgreSQL, imports of at least this many rows run in a heavy worker on its own connection
   * (SDCS_IMPORT_WORKER_ROWS; decision 0233); smaller ones on the request loop.
   */
  importWorkerRows: number;
}

export interface S3Config {
  bucket: string;
  /** An S3-compatible endpoint (MinIO, …): addressed path-style. */
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
  /** From the standard AWS variables; unset: the SDK's default credential chain. */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
}

/** DESIGN §9: what may be uploaded unless SDCS_MEDIA_TYPES says otherwise. */
export const DEFAULT_MEDIA_TYPES =
  'pdf=application/pdf,png=image/png,jpg=image/jpeg,jpeg=image/jpeg,gif=image/gif,webp=image/webp,' +
  'csv=text/csv,xlsx=application/vnd.openxmlformats-officedocument.spreadsheetml.sheet,' +
  'docx=application/vnd.openxmlformats-officedocument.wordprocessingml.document,txt=text/plain,' +
  'json=application/json';

/** Parses `ext=type,ext=type`: each extension with its one content type. */
function mediaTypes(env: Env): Map<string, string> {
  const raw = env['SDCS_MEDIA_TYPES'] || DEFAULT_MEDIA_TYPES;
  const types = new Map<string, string>();
  for (const entry of raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const match = /^\.?([a-z0-9]{1,16})=([a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*)$/i.exec(
      entry,
    );
    if (!match)
      throw new ConfigError(`SDCS_MEDIA_TYPES entries must look like pdf=application/pdf, got "${entry}"`);
    types.set(match[1]!.toLowerCase(), match[2]!.toLowerCase());
  }
  return types;
}

function s3Config(env: Env): S3Config | undefined {
  const bucket = env['S3_BUCKET']?.trim();
  if (!bucket) return undefined;
  const endpoint = url(env, 'S3_ENDPOINT', ['http:', 'https:']);
  const accessKeyId = env['AWS_ACCESS_KEY_ID'];
  const secretAccessKey = env['AWS_SECRET_ACCESS_KEY'];
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new ConfigError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together');
  }
  const sessionToken = env['AWS_SESSION_TOKEN'];
  return {
    bucket,
    endpoint,
    region: env['S3_REGION'] || env['AWS_REGION'] || env['AWS_DEFAULT_REGION'] || 'us-east-1',
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== undefined),
    credentials:
      accessKeyId && secretAccessKey
        ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }
        : undefined,
  };
}

/** A configuration problem: start-up prints its message as one line and exits. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

const PROXY_ENTRY = /^(loopback|linklocal|uniquelocal|[0-9a-f.:]+(\/\d{1,3})?)$/i;

function trustProxy(env: Env): boolean | number | string {
  const raw = env['SDCS_TRUST_PROXY']?.trim();
  if (raw === undefined || raw === '' || /^(false|0|no|off)$/i.test(raw)) return false;
  if (/^(true|yes|on)$/i.test(raw)) return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((e) => e.trim());
  if (entries.every((e) => PROXY_ENTRY.test(e))) return entries.join(',');
  throw new ConfigError(
    `SDCS_TRUST_PROXY must be true, false, a hop count, or proxy addresses/CIDRs (or loopback), got "${raw}"`,
  );
}

function choice<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  throw new ConfigError(`${name} must be one of ${choices.join(', ')}, got "${env[name]}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

function token(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 16) throw new ConfigError(`${name} must be at least 16 characters long`);
  return raw;
}

/** Reads the secret kept in the data directory, creating it on first use. */
function loadSecret(env: Env, dataDir: string): string {
  const given = env['SDCS_SECRET'];
  if (given) {
    if (given.length < 32) throw new ConfigError('SDCS_SECRET must be at least 32 characters long');
    return given;
  }
  const file = join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

/** SDCS_SIGNING_KEY: an Ed25519 private key in PEM, given as such or as the path of its file. */
function signingKey(env: Env): string | undefined {
  const raw = env['SDCS_SIGNING_KEY'];
  if (!raw) return undefined;
  let pem = raw;
  if (!raw.trimStart().startsWith('-----BEGIN')) {
    if (!existsSync(raw))
      throw new ConfigError('SDCS_SIGNING_KEY is neither a PEM key nor the path of a file');
    pem = readFileSync(raw, 'utf8');
  }
  try {
    if (createPrivateKey(pem).asymmetricKeyType === 'ed25519') return pem;
  } catch {
    // reported below
  }
  throw new ConfigError(
    'SDCS_SIGNING_KEY must be an Ed25519 private key in PEM (openssl genpkey -algorithm ed25519)',
  );
}

/** Parses the environment into a Config, throwing ConfigError with a one-line message. */
export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const host = env['HOST'] || '127.0.0.1';
  const dataDir = resolve(env['SDCS_DATA_DIR'] || './data');
  const publicUrl = (
    url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  ).replace(/\/+$/, '');
  const adminEmails = new Set(
    (env['SDCS_ADMIN_EMAILS'] ?? '')
      .split(',')
      .map((e) => e.trim().toLowerCase())
      .filter(Boolean),
  );
  return {
    port,
    host,
    publicUrl,
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir,
    allowSignup: bool(env, 'SDCS_ALLOW_SIGNUP', false),
    adminEmails,
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: env['SDCS_MAIL_FROM'] || 'SDCS <no-reply@sdcs.local>',
    secret: loadSecret(env, dataDir),
    signingKey: signingKey(env),
    tokenTtlSeconds: int(env, 'SDCS_TOKEN_TTL_HOURS', 12, 1, 24 * 365) * 3600,
    bodyLimitBytes: int(env, 'SDCS_BODY_LIMIT_MB', 1, 1, 1024) * 1024 * 1024,
    largeBodyLimitBytes: int(env, 'SDCS_IMPORT_BODY_LIMIT_MB', 10, 1, 1024) * 1024 * 1024,
    bootstrap: bool(env, 'SDCS_BOOTSTRAP', true),
    logLevel: choice(
      env,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      'info',
    ),
    logFormat: choice(env, 'LOG_FORMAT', ['auto', 'pretty', 'json'], 'auto'),
    authAttemptsPerMinute: int(env, 'SDCS_AUTH_ATTEMPTS_PER_MINUTE', 10, 1, 1_000_000),
    calcTimeMs: int(env, 'SDCS_CALC_TIME_MS', 50, 1, 60_000),
    calcMemoryBytes: int(env, 'SDCS_CALC_MEMORY_MB', 32, 4, 1024) * 1024 * 1024,
    calcRequestBudgetMs: int(env, 'SDCS_CALC_REQUEST_BUDGET_MS', 5000, 1, 600_000),
    calcWorkers: int(env, 'SDCS_CALC_WORKERS', Math.min(2, availableParallelism()), 1, 64),
    heavyWorkers: int(env, 'SDCS_HEAVY_WORKERS', Math.min(2, availableParallelism()), 1, 64),
    heavyPerOrganization: int(env, 'SDCS_HEAVY_PER_ORGANIZATION', 2, 1, 64),
    heavyQueuePerOrganization: int(env, 'SDCS_HEAVY_QUEUE_PER_ORGANIZATION', 8, 1, 10_000),
    heavyMemoryBytes: int(env, 'SDCS_HEAVY_MEMORY_MB', 512, 16, 1024 * 1024) * 1024 * 1024,
    heavyJobHeapBytes: int(env, 'SDCS_HEAVY_JOB_HEAP_MB', 256, 16, 64 * 1024) * 1024 * 1024,
    prestartWorkers: bool(env, 'SDCS_PRESTART_WORKERS', true),
    metricsToken: token(env, 'SDCS_METRICS_TOKEN'),
    rateLimitPerMinute: int(env, 'SDCS_RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    trustProxy: trustProxy(env),
    requestTimeoutMs: int(env, 'SDCS_REQUEST_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
    headersTimeoutMs: int(env, 'SDCS_HEADERS_TIMEOUT_MS', 10_000, 500, 600_000),
    keepAliveTimeoutMs: int(env, 'SDCS_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    maxRequestsPerSocket: int(env, 'SDCS_MAX_REQUESTS_PER_SOCKET', 1_000, 1, 1_000_000),
    // The embedded database runs on the event loop itself: a large write delays the loop for as
    // long as it takes, and the requests behind it are served right after, so by default the
    // delay check only applies with a PostgreSQL server.
    maxEventLoopDelayMs: int(env, 'SDCS_MAX_EVENT_LOOP_DELAY_MS', env['DATABASE_URL'] ? 1000 : 0, 0, 600_000),
    maxHeapUsedBytes: int(env, 'SDCS_MAX_HEAP_USED_MB', 0, 0, 1024 * 1024) * 1024 * 1024,
    mediaMaxBytes: int(env, 'SDCS_MEDIA_MAX_MB', 25, 1, 5 * 1024) * 1024 * 1024,
    mediaQuotaBytes: int(env, 'SDCS_MEDIA_QUOTA_MB', 0, 0, 1024 * 1024 * 1024) * 1024 * 1024 || null,
    mediaTypes: mediaTypes(env),
    s3: s3Config(env),
    dbPoolSize: int(env, 'SDCS_DB_POOL_SIZE', 10, 2, 1_000),
    dbStreamPoolSize: int(env, 'SDCS_DB_STREAM_POOL_SIZE', 5, 1, 1_000),
    sendTimeoutMs: int(env, 'SDCS_SEND_TIMEOUT_SECONDS', 30, 1, 3_600) * 1000,
    exportsPerCaller: int(env, 'SDCS_EXPORTS_PER_CALLER', 2, 1, 1_000),
    exportsPerOrganization: int(env, 'SDCS_EXPORTS_PER_ORGANIZATION', 4, 1, 1_000),
    accountAttemptBudget: int(env, 'SDCS_ACCOUNT_ATTEMPT_BUDGET', 20, 1, 1_000_000),
    dashboardAttemptBudget: int(env, 'SDCS_DASHBOARD_ATTEMPT_BUDGET', 50, 1, 1_000_000),
    attemptBackoffMaxSeconds: int(env, 'SDCS_ATTEMPT_BACKOFF_MAX_SECONDS', 900, 1, 86_400),
    attemptBudgetQuietMinutes: int(env, 'SDCS_ATTEMPT_BUDGET_QUIET_MINUTES', 60, 1, 10_080),
    // Unset: four credentials' worth (0 when the per-credential limit is off).
    orgRateLimitPerMinute: int(
      env,
      'SDCS_ORG_RATE_LIMIT_PER_MINUTE',
      4 * int(env, 'SDCS_RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000),
      0,
      100_000_000,
    ),
    maxApiKeysPerOrganization: int(env, 'SDCS_MAX_API_KEYS_PER_ORGANIZATION', 20, 1, 10_000),
    oidcAllowHttp: bool(env, 'SDCS_OIDC_ALLOW_HTTP', false),
    oidcLoginTtlSeconds: int(env, 'SDCS_OIDC_LOGIN_TTL_SECONDS', 600, 30, 3_600),
    oidcTimeoutMs: int(env, 'SDCS_OIDC_TIMEOUT_MS', 10_000, 100, 120_000),
    webhooksAllowPrivate: bool(env, 'SDCS_WEBHOOKS_ALLOW_PRIVATE', false),
    webhooksTimeoutMs: int(env, 'SDCS_WEBHOOKS_TIMEOUT_SECONDS', 10, 1, 120) * 1000,
    jobsPollMs: int(env, 'SDCS_JOBS_POLL_MS', 1000, 20, 600_000),
    jobsLeaseMs: int(env, 'SDCS_JOBS_LEASE_SECONDS', 120, 1, 86_400) * 1000,
    importWorkerRows: int(env, 'SDCS_IMPORT_WORKER_ROWS', 1000, 1, 1_000_000),
  };
}

/**
 * The start-up warning for `SDCS_TRUST_PROXY=true`: every proxy is trusted, so the client address
 * is the leftmost `X-Forwarded-For` entry, which the client itself writes. Attempt limits and
 * rate limits keyed by address can then be dodged by sending a new value each time.
 */
export function trustProxyWarning(config: Pick<Config, 'trustProxy'>): string | undefined {
  if (config.trustProxy !== true) return undefined;
  return 'SDCS_TRUST_PROXY=true trusts the leftmost X-Forwarded-For entry, which any client can write: per-address limits can be dodged. Set the number of proxies in front of the service (e.g. SDCS_TRUST_PROXY=1) or their addresses (e.g. SDCS_TRUST_PROXY=10.0.0.0/8) instead.';
}
