import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { AppError } from '../domain/errors.ts';
import type { Metrics } from './metrics.ts';

const REDIS_START_WAIT_MS = 2_000;

export interface RateLimitOptions {
  /** Sign-up, login and invitation-acceptance attempts per client address and minute. */
  authAttemptsPerMinute: number;
  /** Requests per credential (or client address without one) and minute; 0: no such limit. */
  requestsPerMinute: number;
  /**
   * Requests per organization and minute, all its credentials (tokens and API keys) together;
   * 0 or unset: no such limit (decision 155).
   */
  orgRequestsPerMinute?: number;
  /** Counters in this Redis, shared by every process using it; in memory without. */
  redisUrl?: string | undefined;
  metrics?: Metrics;
}

/**
 * The bucket of a request: its credential's (a hash of the bearer token, never the token) once
 * the credential resolved to a caller, else its client address. A made-up or revoked token
 * therefore counts against the address it comes from, not against a fresh bucket of its own.
 */
function credentialKey(request: FastifyRequest): string {
  const token = request.caller
    ? /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1]
    : undefined;
  return token
    ? `cred:${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`
    : `ip:${request.ip}`;
}

type StoreResult = { current: number; ttl: number };
type StoreCallback = (error: Error | null, result?: StoreResult) => void;
interface CounterStore {
  incr(key: string, done: StoreCallback, timeWindow: number, max: number): void;
  read?(key: string, done: StoreCallback, timeWindow: number, max: number): void;
  child(options: object): CounterStore;
}

/**
 * In-memory counters whose answers are copies. The plugin's own in-memory store hands back its
 * live counter object and the plugin reads it after an `await`: under parallel requests every
 * request then read the count of the last one, so the first attempts of a burst could see a
 * count far past (or short of) their own. A copy taken at increment time is this request's count.
 */
class SnapshotStore implements CounterStore {
  private readonly counters = new Map<string, { count: number; startedAt: number }>();
  private readonly capacity = 50_000;

  incr(key: string, done: StoreCallback, timeWindow: number): void {
    const now = Date.now();
    let counter = this.counters.get(key);
    if (!counter || counter.startedAt + timeWindow <= now) {
      counter = { count: 0, startedAt: now };
      this.counters.delete(key);
      // Bounded: the oldest counters go first (a Map iterates in insertion order).
      if (this.counters.size >= this.capacity) this.counters.delete(this.counters.keys().next().value!);
      this.counters.set(key, counter);
    }
    counter.count += 1;
    done(null, { current: counter.count, ttl: counter.startedAt + timeWindow - now });
  }

  read(key: string, done: StoreCallback, timeWindow: number): void {
    const now = Date.now();
    const counter = this.counters.get(key);
    const live = counter !== undefined && counter.startedAt + timeWindow > now;
    done(
      null,
      live ? { current: counter.count, ttl: counter.startedAt + timeWindow - now } : { current: 0, ttl: 0 },
    );
  }

  child(): CounterStore {
    return new SnapshotStore();
  }
}

/** Counts a request whose credential was refused (401) against its client address's budget. */
export type RefusalCounter = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Two limits, answered with 429 TOO_MANY_REQUESTS, `Retry-After` and the `RateLimit-*` headers:
 * - attempts on the routes that take a secret without a credential (sign-up, login, accepting
 *   an invitation): every public POST route, per client address and route;
 * - every other API request, per credential.
 * With a Redis URL the counters are shared by all processes (several behind one load balancer
 * count together); if Redis does not answer, requests pass rather than fail.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  options: RateLimitOptions | number,
): Promise<RefusalCounter | undefined> {
  const opts =
    typeof options === 'number' ? { authAttemptsPerMinute: options, requestsPerMinute: 0 } : options;
  // Runs before the plugin's own onRoute hook (registered below), which reads `rateLimit`.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // A route may declare its own limit (the media upload endpoint does: a signed policy, not a secret).
    if (route.config?.public && methods.includes('POST') && route.config.rateLimit === undefined) {
      route.config = {
        ...route.config,
        rateLimit: {
          max: opts.authAttemptsPerMinute,
          timeWindow: 60_000,
          keyGenerator: (request: FastifyRequest) => request.ip,
          onExceeded: () => opts.metrics?.refused.inc({ reason: 'auth_attempts' }),
          errorResponseBuilder: (_request: FastifyRequest, context: { ttl: number }) =>
            new AppError(
              'TOO_MANY_REQUESTS',
              `Too many attempts; try again in ${Math.ceil(context.ttl / 1000)} s`,
            ),
        },
      };
    }
  });
  let redis: Redis | undefined;
  if (opts.redisUrl) {
    redis = new Redis(opts.redisUrl, {
      // Fail fast: a request never waits for an unreachable Redis (skipOnError lets it pass).
      connectTimeout: 1_000,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: false,
    });
    redis.on('error', (error) => app.log.warn({ err: error }, 'rate-limit store (Redis) unavailable'));
    // Start counting in Redis from the first request when it is there; without it, start anyway.
    const connection = redis;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, REDIS_START_WAIT_MS);
      connection.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    app.addHook('onClose', async () => {
      redis?.disconnect();
    });
  }
  await app.register(rateLimit, {
    global: opts.requestsPerMinute > 0,
    max: opts.requestsPerMinute || 1,
    timeWindow: 60_000,
    keyGenerator: credentialKey,
    enableDraftSpec: true,
    skipOnError: true,
    // Redis counts with one atomic script; in memory, counters answer copies (see SnapshotStore).
    ...(redis ? { redis, nameSpace: 'sdcs-rate-limit:' } : { store: SnapshotStore }),
    onExceeded: () => opts.metrics?.refused.inc({ reason: 'rate_limit' }),
    errorResponseBuilder: (_request, context) =>
      new AppError('TOO_MANY_REQUESTS', `Too many requests; try again in ${Math.ceil(context.ttl / 1000)} s`),
  });
  if ((opts.orgRequestsPerMinute ?? 0) > 0)
    registerOrganizationBudget(app, opts.orgRequestsPerMinute!, opts.metrics);
  // The global limit's own check, keyed by client address for a request without a caller: the
  // credential hook runs it before answering 401, which otherwise ends the request before it.
  if (opts.requestsPerMinute === 0) return undefined;
  const check = app.rateLimit();
  return async (request, reply) => {
    await check.call(app, request, reply);
  };
}

/**
 * The organization's budget (decision 155): every request of a caller counts once against its
 * organization, whichever of its credentials it bears, so that more API keys do not mean more
 * requests. It counts in the same store as the per-credential limit (Redis: one atomic script;
 * in memory: a synchronous increment), on the routes that limit applies to (routes with limits of
 * their own, attempts and uploads, or none, health, are left to those), right after that limit's
 * own check: a credential past its own limit is refused there and does not spend its
 * organization's budget for the others.
 */
function registerOrganizationBudget(app: FastifyInstance, max: number, metrics: Metrics | undefined): void {
  const count = app.createRateLimit({
    max,
    timeWindow: 60_000,
    keyGenerator: (request: FastifyRequest) => `org:${request.caller?.organizationId}`,
  });
  const check = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.caller) return;
    const counted = await count(request);
    if (counted.isAllowed || !counted.isExceeded) return;
    metrics?.refused.inc({ reason: 'organization_rate_limit' });
    const wait = Math.max(1, counted.ttlInSeconds);
    reply.header('retry-after', String(wait));
    throw new AppError(
      'TOO_MANY_REQUESTS',
      `Your organization made more than ${max} requests this minute, with all its credentials together; try again in ${wait} s`,
    );
  };
  // Registered after the plugin's own onRoute hook, so this runs after the per-credential check
  // (and after the credential hook, an application-wide one, which resolved the caller).
  app.addHook('onRoute', (route) => {
    if (route.config?.rateLimit !== undefined) return;
    const hooks = route.onRequest;
    route.onRequest = Array.isArray(hooks) ? [...hooks, check] : hooks ? [hooks, check] : [check];
  });
}
