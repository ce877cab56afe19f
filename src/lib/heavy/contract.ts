/** What the heavy-work pool (pool.ts) gives its callers: its errors, its streams, its figures. */
import type { SerializedFailure } from './protocol.ts';

export type { SerializedFailure };

/** How the pool's refusals and its tasks' failures are raised on the request side. */
export interface HeavyErrors {
  /** Beyond an organization's share, or under pressure caused by it: 429 with Retry-After. */
  refused(message: string, retryAfterSeconds: number): Error;
  /** The pool stops, or a worker stopped under a job: 503. */
  unavailable(message: string): Error;
  /** A task raised `failure` (an AppError, an Ajv validation error, anything else). */
  failed(failure: SerializedFailure): Error;
}

/** Plain errors with the fields the service's error answers need (when no `errors` is given). */
export const defaultHeavyErrors: HeavyErrors = {
  refused: (message, retryAfterSeconds) =>
    Object.assign(new Error(message), { code: 'TOO_MANY_REQUESTS', status: 429, retryAfterSeconds }),
  unavailable: (message) => Object.assign(new Error(message), { code: 'SERVICE_UNAVAILABLE', status: 503 }),
  failed: (failure) =>
    Object.assign(new Error(failure.message), {
      name: failure.name,
      ...(failure.code ? { code: failure.code } : {}),
      ...(failure.issues ? { issues: failure.issues } : {}),
      ...(failure.validation ? { validation: failure.validation } : {}),
      ...(failure.validationContext ? { validationContext: failure.validationContext } : {}),
    }),
};

/** A job's parts as they come (async iteration, with backpressure) and its result. */
export interface HeavyStream<P = unknown, R = unknown> extends AsyncIterable<P> {
  result: Promise<R>;
}

export interface HeavyStats {
  workers: number;
  active: number;
  queued: number;
  memoryReservedBytes: number;
  /** Running and waiting jobs per organization (only those with any). */
  organizations: Record<string, { active: number; queued: number }>;
}
