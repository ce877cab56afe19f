import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { AppError } from '../domain/errors.ts';
import type { Metrics } from './metrics.ts';

const REDIS_START_WAIT_MS = 2_000;

export interface RateLimitOptions {
  /** Sign-up, login and invitation-acceptance attempts per client address and minute. */
  authAttemptsPerMinute: number;
  /** Requests per credential (or client address without one) and minute; 0: no such limit. */
  requestsPerMinute: number;
  /** Counters in this Redis, shared by every process using it; in memory without. */
  redisUrl?: string | undefined;
  metrics?: Metrics;
}

/**
 * The credential a request bears, as a key: a hash of its bearer token (never the token
 * itself), so the limit holds before and whether or not the token resolves to a caller.
 * Requests without one are counted per client address.
 */
function credentialKey(request: FastifyRequest): string {
  const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  return token
    ? `cred:${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`
    : `ip:${request.ip}`;
}

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
): Promise<void> {
  const opts =
    typeof options === 'number' ? { authAttemptsPerMinute: options, requestsPerMinute: 0 } : options;
  // Runs before the plugin's own onRoute hook (registered below), which reads `rateLimit`.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.config?.public && methods.includes('POST')) {
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
    ...(redis ? { redis, nameSpace: 'sdcs-rate-limit:' } : {}),
    onExceeded: () => opts.metrics?.refused.inc({ reason: 'rate_limit' }),
    errorResponseBuilder: (_request, context) =>
      new AppError('TOO_MANY_REQUESTS', `Too many requests; try again in ${Math.ceil(context.ttl / 1000)} s`),
  });
}
