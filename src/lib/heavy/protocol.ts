/** Messages between the heavy-work pool (src/lib/heavy/pool.ts) and its worker threads. */

/** An error as it crosses the thread boundary: enough to raise the same answer on the other side. */
export interface SerializedFailure {
  name: string;
  message: string;
  /** An AppError's code and issues (its answer), when the task raised one. */
  code?: string;
  issues?: { path?: string; message: string }[];
  /** Ajv's findings, when the task's validation refused its input (answered as Fastify's are). */
  validation?: unknown[];
  validationContext?: string;
}

export type ToHeavyWorker =
  | { type: 'job'; id: number; task: string; input: unknown }
  /** A part of job `id`'s streamed input (`HeavyStream.feed`); `end` once the input is complete. */
  | { type: 'feed'; id: number; part: unknown }
  | { type: 'feed-end'; id: number }
  /** The consumer of job `id` went away: its `emit` and its input fail, so the task stops. */
  | { type: 'cancel'; id: number }
  /** The pool took `count` parts of job `id` off its hands: the worker may send that many more. */
  | { type: 'ack'; id: number; count: number };

export type FromHeavyWorker =
  | { type: 'part'; id: number; part: unknown }
  /** The task took `count` parts of its input: the pool may send that many more. */
  | { type: 'took'; id: number; count: number }
  | { type: 'done'; id: number; result: unknown }
  | { type: 'failed'; id: number; failure: SerializedFailure };

/** Parts a task may send ahead of what its consumer has taken (backpressure). */
export const PART_WINDOW = 8;

/** Parts acknowledged at once when the consumer keeps up (half the worker's window). */
export const PART_BATCH = 4;

/** Parts of a job's input sent ahead of what its task has taken (backpressure the other way). */
export const FEED_WINDOW = 2;

/** What `emit` and the input raise once the job's consumer went away (`cancel`). */
export const CANCELLED = 'HeavyJobCancelled';

/**
 * A task run in a worker: `input` as sent (structured clone), `emit` sends one part of its output
 * to the caller and resolves when the caller has room for more; `feed` gives the parts of a
 * streamed input as the caller sends them (empty unless the job was started with `feed: true`);
 * `cancelled` aborts when the job's caller went away (a task that sends no parts, or whose input is
 * complete, learns it there); the value returned is the result.
 */
export type HeavyTask = (
  input: any,
  emit: (part: unknown) => Promise<void>,
  feed: AsyncIterable<unknown>,
  cancelled: AbortSignal,
) => unknown | Promise<unknown>;
