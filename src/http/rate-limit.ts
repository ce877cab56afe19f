import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.ts';

/**
 * Limits attempts on the routes that take a secret without a credential (sign-up, login,
 * accepting an invitation): every public POST route, counted per client address. Over the
 * limit the answer is 429 TOO_MANY_REQUESTS with `Retry-After`. Counters live in memory, so
 * with several processes each keeps its own.
 */
export async function registerRateLimits(app: FastifyInstance, attemptsPerMinute: number): Promise<void> {
  // Runs before the plugin's own onRoute hook (registered below), which reads `rateLimit`.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // A route may declare its own limit (the media upload endpoint does).
    if (route.config?.public && methods.includes('POST') && route.config.rateLimit === undefined) {
      route.config = { ...route.config, rateLimit: { max: attemptsPerMinute, timeWindow: 60_000 } };
    }
  });
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new AppError('TOO_MANY_REQUESTS', `Too many attempts; try again in ${Math.ceil(context.ttl / 1000)} s`),
  });
}
