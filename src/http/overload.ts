import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.ts';
import type { Metrics } from './metrics.ts';

/** Routes answered even under pressure: liveness and metrics must tell what is going on. */
const ALWAYS_ANSWERED = new Set(['/api/v1/health/live', '/metrics']);

/**
 * Under saturation (event-loop delay or heap over their limits) a request is refused at once
 * with 503 SERVICE_UNAVAILABLE, `Retry-After` and the error body, rather than queued until it
 * times out. A limit of 0 turns its check off; with both off nothing is registered.
 */
export async function registerOverloadProtection(
  app: FastifyInstance,
  limits: { maxEventLoopDelayMs: number; maxHeapUsedBytes: number; sampleIntervalMs?: number },
  metrics?: Metrics,
): Promise<void> {
  if (!limits.maxEventLoopDelayMs && !limits.maxHeapUsedBytes) return;
  const sampleInterval = limits.sampleIntervalMs ?? 500;
  // Start-up (opening the database, migrating, bootstrap) blocks the event loop before the app
  // is ready: the samples taken then say nothing about load, so two fresh ones are awaited.
  let checkedFrom = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    checkedFrom = Date.now() + 2 * sampleInterval;
  });
  await app.register(underPressure, {
    maxEventLoopDelay: limits.maxEventLoopDelayMs,
    maxHeapUsedBytes: limits.maxHeapUsedBytes,
    sampleInterval,
    pressureHandler: (request, _reply, type) => {
      if (Date.now() < checkedFrom || ALWAYS_ANSWERED.has(request.routeOptions.url ?? '')) return undefined;
      metrics?.refused.inc({ reason: 'overload' });
      request.log.warn({ type }, 'refused under pressure');
      const what = type === 'heapUsedBytes' ? 'memory' : 'load';
      return Promise.reject(
        new AppError('SERVICE_UNAVAILABLE', `The service is under heavy ${what}; try again shortly`),
      );
    },
  });
}
