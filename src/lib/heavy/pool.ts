/**
 * Heavy work off the request loop, with a fair share per organization (decision 0177).
 *
 * CPU-heavy work (parsing and validating a 10 MiB import body, encoding a workbook, compressing)
 * runs in worker threads, so the service's event loop only moves bytes and other organizations'
 * requests keep their turn. The pool admits a job as follows:
 *
 * - at most `perOrganization` jobs of one organization run at once; its other jobs wait in its
 *   queue, in the order they came; beyond `queuePerOrganization` waiting jobs the next one is
 *   refused with 429 (an error whose `retryAfterSeconds` the error handler sends as Retry-After);
 * - free workers are taken in turn across organizations (round robin, as the calculation sandbox
 *   does): one organization's backlog delays another's job by at most one job per worker;
 * - the jobs running hold at most `memoryBudgetBytes` (each job states its `bytes`, an estimate
 *   of what it holds): above it, new jobs wait; a job larger than the budget runs alone;
 * - while the process is under pressure (`underPressure()`, the event-loop delay or heap check of
 *   @fastify/under-pressure) and heavy work is running, no new job starts, and an organization
 *   that already has heavy work running or waiting is refused at once (429): the organization
 *   causing the load gets the overload answer first.
 * Each worker runs one job at a time, with its heap capped at `jobHeapBytes` (a job over it fails
 * with 503 and the worker is replaced).
 *
 * API (for any route; the lead routes export encoding through it):
 *
 *     const heavy = new HeavyWork({ entry, workers: 2, perOrganization: 2, ... });
 *     // one result:
 *     const value = await heavy.run({ organizationId, task: 'json-body', input, bytes });
 *     // parts streamed with backpressure (at most PART_WINDOW ahead of the consumer), then a result:
 *     const job = heavy.stream({ organizationId, task: 'xlsx', input, bytes, signal });
 *     for await (const chunk of job) reply.raw.write(chunk);   // or Readable.from(job)
 *     const summary = await job.result;
 *     // input streamed too (`feed: true`): job.feed(part) waits for room, job.end() completes it;
 *     // the task reads it as its third argument. await job.started before reading a source.
 *
 * Tasks are named functions `(input, emit) => result` served by the worker entry (`entry`, a
 * module calling `serveHeavyTasks({ name: task, … })`, see src/heavy-worker.ts): `emit(part)`
 * sends a part and resolves when the consumer has room. Inputs and parts cross by structured
 * clone (`transfer` hands ArrayBuffers over without a copy). A task's AppError (or Ajv
 * validation error) is raised again on this side with the same code, message and issues.
 */
import { Worker } from 'node:worker_threads';
import {
  defaultHeavyErrors,
  type HeavyErrors,
  type HeavyJob,
  type HeavyOptions,
  type HeavyStats,
  type HeavyStream,
  workerLimits,
} from './contract.ts';
import { JobFeed } from './feed.ts';
import { type FromHeavyWorker, PART_BATCH, type ToHeavyWorker } from './protocol.ts';

export type { HeavyErrors, HeavyJob, HeavyOptions, HeavyStats, HeavyStream };

interface Slot {
  worker: Worker;
  job?: Job;
}

interface Job extends HeavyJob {
  id: number;
  bytes: number;
  parts: unknown[];
  /** Parts taken by the consumer and not yet acknowledged to the worker. */
  taken: number;
  wake?: () => void;
  finished: boolean;
  failure?: unknown;
  settle: { resolve: (v: unknown) => void; reject: (e: unknown) => void };
  slot?: Slot;
  /** Whether its parts are dropped as they come (run, not stream). */
  discardParts: boolean;
  inbox: JobFeed;
  began: { resolve: () => void; reject: (e: unknown) => void };
}

const DEFAULT_RETRY_AFTER_SECONDS = 5;
/** While under pressure with jobs waiting, admission is looked at again this often. */
const PRESSURE_RECHECK_MS = 100;

export class HeavyWork {
  readonly #slots: Slot[] = [];
  /** Waiting jobs per organization; the Map's order is the turn order. */
  readonly #queues = new Map<string, Job[]>();
  readonly #active = new Map<string, number>();
  #reserved = 0;
  #nextId = 1;
  #closed = false;
  #recheck: NodeJS.Timeout | undefined;

  readonly #errors: HeavyErrors;

  constructor(private readonly options: HeavyOptions) {
    this.#errors = options.errors ?? defaultHeavyErrors;
  }

  /** Runs a job and resolves with its result (its parts, if any, are dropped). */
  run<R = unknown>(job: HeavyJob): Promise<R> {
    return this.#submit(job, true).result as Promise<R>;
  }

  /** Runs a job whose parts are consumed as they come (see the module's header). */
  stream<P = unknown, R = unknown>(job: HeavyJob): HeavyStream<P, R> {
    const { job: entry, result, started } = this.#submit(job, false);
    const self = this;
    return {
      result: result as Promise<R>,
      started,
      feed: (part, transfer) => entry.inbox.push(part, transfer),
      end: () => entry.inbox.end(),
      async *[Symbol.asyncIterator]() {
        try {
          for (;;) {
            if (entry.parts.length > 0) {
              const part = entry.parts.shift();
              self.#ack(entry);
              yield part as P;
              continue;
            }
            if (entry.finished) {
              if (entry.failure) throw entry.failure;
              return;
            }
            await new Promise<void>((resolve) => (entry.wake = resolve));
          }
        } finally {
          // The consumer stopped taking parts (it broke off, or failed): the task stops too.
          self.#cancel(entry);
        }
      },
    };
  }

  /** Whether an organization has heavy work running or waiting (it is the one causing load). */
  busy(organizationId: string): boolean {
    return (this.#active.get(organizationId) ?? 0) > 0 || (this.#queues.get(organizationId)?.length ?? 0) > 0;
  }

  /** Whether no heavy work runs or waits. */
  idle(): boolean {
    return this.#queues.size === 0 && !this.#slots.some((s) => s.job);
  }

  stats(): HeavyStats {
    const organizations: HeavyStats['organizations'] = {};
    for (const [org, n] of this.#active) organizations[org] = { active: n, queued: 0 };
    for (const [org, q] of this.#queues)
      organizations[org] = { active: this.#active.get(org) ?? 0, queued: q.length };
    let queued = 0;
    for (const q of this.#queues.values()) queued += q.length;
    return {
      workers: this.#slots.length,
      active: this.#slots.filter((s) => s.job).length,
      queued,
      memoryReservedBytes: this.#reserved,
      organizations,
    };
  }

  /** Starts a worker before a job needs one: a first job then waits for no thread's start. */
  warm(): void {
    if (!this.#closed) this.#freeSlot();
  }

  /** Stops the workers; waiting jobs are refused, running ones fail. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#recheck);
    for (const queue of this.#queues.values())
      for (const job of queue) this.#finish(job, this.#errors.unavailable('The service is stopping'));
    this.#queues.clear();
    await Promise.all(this.#slots.splice(0).map((s) => s.worker.terminate()));
  }

  #submit(
    spec: HeavyJob,
    discardParts: boolean,
  ): { job: Job; result: Promise<unknown>; started: Promise<void> } {
    const org = spec.organizationId;
    let settle!: Job['settle'];
    const result = new Promise<unknown>((resolve, reject) => (settle = { resolve, reject }));
    let began!: Job['began'];
    const started = new Promise<void>((resolve, reject) => (began = { resolve, reject }));
    // A stream's consumer reads the failure from the iterator; the result must not go unhandled.
    if (!discardParts) result.catch(() => undefined);
    started.catch(() => undefined);
    const id = this.#nextId++;
    const job: Job = {
      ...spec,
      id,
      bytes: Math.max(0, spec.bytes ?? 0),
      parts: [],
      taken: 0,
      finished: false,
      settle,
      discardParts,
      inbox: new JobFeed(id),
      began,
    };
    const refuse = (message: string) => {
      const error = this.#errors.refused(
        message,
        this.options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
      );
      this.#finish(job, error);
      return { job, result, started };
    };
    if (this.#closed) return refuse('The service is stopping; try again shortly');
    const queue = this.#queues.get(org) ?? [];
    if (queue.length >= this.options.queuePerOrganization)
      return refuse(
        `Your organization already has ${queue.length} large operations waiting, the most it may queue; try again when one has finished`,
      );
    if (this.#pressed() && this.busy(org))
      return refuse(
        'The service is under heavy load from your organization’s large operations; try again when they have finished',
      );
    if (spec.signal?.aborted) {
      this.#finish(job, spec.signal.reason);
      return { job, result, started };
    }
    spec.signal?.addEventListener(
      'abort',
      () => {
        const waiting = this.#queues.get(org);
        const at = waiting?.indexOf(job) ?? -1;
        if (at < 0) return this.#cancel(job);
        waiting!.splice(at, 1);
        if (waiting!.length === 0) this.#queues.delete(org);
        this.#finish(job, spec.signal!.reason);
      },
      { once: true },
    );
    if (queue.length === 0) this.#queues.set(org, queue);
    queue.push(job);
    this.#dispatch();
    return { job, result, started };
  }

  /** Under pressure with heavy work running: new jobs wait. */
  #pressed(): boolean {
    return this.#slots.some((s) => s.job) && (this.options.underPressure?.() ?? false);
  }

  /** Starts waiting jobs on free workers, organizations taking turns. */
  #dispatch(): void {
    if (this.#closed) return;
    for (;;) {
      if (this.#queues.size === 0) return;
      if (this.#pressed()) {
        this.#recheck ??= setTimeout(() => {
          this.#recheck = undefined;
          this.#dispatch();
        }, PRESSURE_RECHECK_MS).unref();
        return;
      }
      const slot = this.#freeSlot();
      if (!slot) return;
      const job = this.#next();
      if (!job) return;
      this.#start(slot, job);
    }
  }

  /** The first organization in turn below its cap whose next job fits the budget; moved to the back. */
  #next(): Job | undefined {
    const running = this.#slots.some((s) => s.job);
    for (const [org, queue] of this.#queues) {
      if ((this.#active.get(org) ?? 0) >= this.options.perOrganization) continue;
      const job = queue[0]!;
      if (running && this.#reserved + job.bytes > this.options.memoryBudgetBytes) continue;
      queue.shift();
      this.#queues.delete(org);
      if (queue.length > 0) this.#queues.set(org, queue);
      return job;
    }
    return undefined;
  }

  #freeSlot(): Slot | undefined {
    const free = this.#slots.find((s) => !s.job);
    if (free) return free;
    if (this.#slots.length >= this.options.workers) return undefined;
    return this.#spawn();
  }

  #spawn(): Slot {
    const worker = new Worker(this.options.entry, { resourceLimits: workerLimits(this.options) });
    const slot: Slot = { worker };
    worker.on('message', (message: FromHeavyWorker) => this.#onMessage(slot, message));
    worker.on('error', (error) => this.#onStopped(slot, error));
    worker.on('exit', (code) => this.#onStopped(slot, new Error(`heavy worker exited with code ${code}`)));
    worker.unref();
    this.#slots.push(slot);
    return slot;
  }

  #start(slot: Slot, job: Job): void {
    slot.job = job;
    job.slot = slot;
    this.#active.set(job.organizationId, (this.#active.get(job.organizationId) ?? 0) + 1);
    this.#reserved += job.bytes;
    const message: ToHeavyWorker = { type: 'job', id: job.id, task: job.task, input: job.input };
    slot.worker.postMessage(message, job.transfer ?? []);
    job.input = undefined;
    job.began.resolve();
    if (job.feed) job.inbox.attach((m, transfer) => slot.worker.postMessage(m, transfer ?? []));
    else job.inbox.end();
  }

  /** Tells a running job's task that its caller went away (its `emit` and input then fail). */
  #cancel(job: Job): void {
    if (job.finished || !job.slot) return;
    const message: ToHeavyWorker = { type: 'cancel', id: job.id };
    job.slot.worker.postMessage(message);
  }

  #onMessage(slot: Slot, message: FromHeavyWorker): void {
    const job = slot.job;
    if (!job || job.id !== message.id) return;
    if (message.type === 'took') {
      job.inbox.took(message.count);
      return;
    }
    if (message.type === 'part') {
      if (job.discardParts) {
        job.taken++;
        this.#ack(job);
      } else {
        job.parts.push(message.part);
        this.#wake(job);
      }
      return;
    }
    this.#release(slot);
    if (message.type === 'done') this.#finish(job, undefined, message.result);
    else this.#finish(job, this.#errors.failed(message.failure));
    this.#dispatch();
  }

  /** A worker stopped (out of memory, crashed): its job fails, a new worker starts when needed. */
  #onStopped(slot: Slot, error: Error): void {
    const at = this.#slots.indexOf(slot);
    if (at < 0) return;
    this.#slots.splice(at, 1);
    const job = slot.job;
    if (job) {
      this.#release(slot);
      const outOfMemory = (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.#finish(
        job,
        this.#errors.unavailable(
          outOfMemory
            ? 'This operation needed more memory than one operation may use; send it in smaller parts'
            : 'The operation could not be finished; try again shortly',
        ),
      );
    }
    this.#dispatch();
  }

  #release(slot: Slot): void {
    const job = slot.job!;
    slot.job = undefined;
    job.slot = undefined;
    this.#reserved -= job.bytes;
    const n = (this.#active.get(job.organizationId) ?? 1) - 1;
    if (n > 0) this.#active.set(job.organizationId, n);
    else this.#active.delete(job.organizationId);
  }

  /** Tells the worker the consumer took a part (in batches, to spare messages). */
  #ack(job: Job): void {
    if (!job.discardParts) job.taken++;
    if (!job.slot || job.finished) return;
    if (job.taken >= PART_BATCH || job.parts.length === 0) {
      const message: ToHeavyWorker = { type: 'ack', id: job.id, count: job.taken };
      job.slot.worker.postMessage(message);
      job.taken = 0;
    }
  }

  #finish(job: Job, failure?: unknown, result?: unknown): void {
    if (job.finished) return;
    job.finished = true;
    job.began.reject(failure ?? new Error('The job finished'));
    job.inbox.close(failure ?? new Error('The job finished before its input was complete'));
    if (failure !== undefined) {
      job.failure = failure;
      job.settle.reject(failure);
    } else job.settle.resolve(result);
    this.#wake(job);
  }

  #wake(job: Job): void {
    const wake = job.wake;
    job.wake = undefined;
    wake?.();
  }
}
