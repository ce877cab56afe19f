import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.ts';
import type { Metrics } from './metrics.ts';

/** Routes answered even under pressure: liveness and metrics must tell what is going on. */
const ALWAYS_ANSWERED = new Set(['/api/v1/health/live', '/metrics']);

/** Who causes load: organizations with heavy work running or waiting (heavy-work pool, exports). */
export interface LoadSources {
  /** Whether any organization has heavy work running or waiting. */
  any(): boolean;
  /** Whether this organization has. */
  busy(organizationId: string): boolean;
}

const PRESSED = Symbol('under pressure');

/**
 * Under saturation (event-loop delay or heap over their limits) a request is refused at once
 * with 503 SERVICE_UNAVAILABLE, `Retry-After` and the error body, rather than queued until it
 * times out. A limit of 0 turns its check off; with both off nothing is registered.
 */
export async function registerOverloadProtection(
  app: FastifyInstance,
  limits: { maxEventLoopDelayMs: number; maxHeapUsedBytes: number; sampleIntervalMs?: number },
  metrics?: Metrics,
  load?: LoadSources,
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
      // Pressure while some organizations run heavy work is theirs: their requests are refused
      // once the credential is known (`refuseBusyUnderPressure`), the others' and the readiness
      // probe go on (decision 0177).
      if (load?.any()) {
        (request as { [PRESSED]?: string })[PRESSED] = type;
        return undefined;
      }
      metrics?.refused.inc({ reason: 'overload' });
      request.log.warn({ type }, 'refused under pressure');
      const what = type === 'heapUsedBytes' ? 'memory' : 'load';
      return Promise.reject(
        new AppError('SERVICE_UNAVAILABLE', `The service is under heavy ${what}; try again shortly`),
      );
    },
  });
}

/**
 * After authentication: a request marked under pressure (see above) from an organization with
 * heavy work running or waiting gets the overload answer (503, Retry-After); others pass.
 * Register after the authentication hook.
 */
export function refuseBusyUnderPressure(app: FastifyInstance, load: LoadSources, metrics?: Metrics): void {
  app.addHook('onRequest', async (request) => {
    const type = (request as { [PRESSED]?: string })[PRESSED];
    const org = request.caller?.organizationId;
    if (!type || !org || !load.busy(org)) return;
    metrics?.refused.inc({ reason: 'overload' });
    request.log.warn({ type }, 'refused under pressure: the organization runs heavy work');
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      'The service is under heavy load from your organization’s large operations; try again when they have finished',
    );
  });
}
