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
  /** Resolves when the job runs on a worker (after its turn in the queue); rejects if it never will. */
  started: Promise<void>;
  /**
   * Sends a part of the job's input (a job started with `feed: true`): resolves when the task is
   * at most a small window behind (backpressure); rejects once the job has finished or failed.
   */
  feed(part: unknown, transfer?: ArrayBuffer[]): Promise<void>;
  /** The input is complete. */
  end(): void;
}

export interface HeavyStats {
  workers: number;
  active: number;
  queued: number;
  memoryReservedBytes: number;
  /** Running and waiting jobs per organization (only those with any). */
  organizations: Record<string, { active: number; queued: number }>;
}

export interface HeavyOptions {
  /** The worker thread's entry module (it calls `serveHeavyTasks`). */
  entry: URL;
  /** Worker threads at most (started on demand). */
  workers: number;
  /** Jobs of one organization running at once. */
  perOrganization: number;
  /** Jobs of one organization waiting at once; beyond, 429. */
  queuePerOrganization: number;
  /** What the running jobs may hold in all (their `bytes`). */
  memoryBudgetBytes: number;
  /** Heap of one worker (so of one job). */
  jobHeapBytes: number;
  /**
   * Young generation of one worker (its short-lived garbage before a scavenge); V8's default when
   * not given (up to 48 MB on 64 bits, taken by a new thread's first large job).
   */
  youngGenerationBytes?: number;
  /** Seconds a refused caller is told to wait. */
  retryAfterSeconds?: number;
  /** Whether the process is under pressure (event loop or heap); new jobs then wait. */
  underPressure?: () => boolean;
  /** The errors raised to callers (the service's AppErrors: src/http/heavy-body.ts `heavyErrors`). */
  errors?: HeavyErrors;
}

export interface HeavyJob {
  organizationId: string;
  /** The name of a task the worker entry serves. */
  task: string;
  input: unknown;
  /** What the job will hold at most, estimated (counts against the memory budget). */
  bytes?: number;
  transfer?: ArrayBuffer[];
  /** Aborting removes a waiting job (rejected with the signal's reason); a running one is cancelled. */
  signal?: AbortSignal;
  /** The job's input is also streamed (`HeavyStream.feed`, then `end`). */
  feed?: boolean;
}

const MB = 1024 * 1024;

/** A heavy worker's `resourceLimits`: its heap (`jobHeapBytes`), and its young generation if given. */
export function workerLimits(options: Pick<HeavyOptions, 'jobHeapBytes' | 'youngGenerationBytes'>) {
  const young = options.youngGenerationBytes;
  return {
    maxOldGenerationSizeMb: Math.max(16, Math.round(options.jobHeapBytes / MB)),
    ...(young ? { maxYoungGenerationSizeMb: Math.max(1, Math.round(young / MB)) } : {}),
  };
}
