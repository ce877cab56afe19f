/**
 * A stream lane (decision 0235): one worker thread that runs many streaming jobs at once, each an
 * async task interleaved with the others on that thread, for work that mostly waits (rows from the
 * database, a client reading the answer) and whose CPU is its own serialisation: CSV and NDJSON
 * exports. Unlike the heavy pool (pool.ts: one job per worker, a fair share per organization), a
 * job here holds no worker of its own: a client that stops reading stalls only its own job (its
 * parts wait, with the same backpressure: at most `PART_WINDOW` parts ahead of the consumer),
 * never the others, and takes nothing from its organization's share of heavy work. How many jobs
 * run at once is bounded by the caller (the export gate); the thread's heap is capped, and the
 * worker starts on the first job and stays (`unref`: it keeps no process alive).
 *
 *     const lane = new StreamLane({ entry, heapBytes, youngBytes });
 *     const job = lane.stream({ task: 'table-export', input, signal });
 *     for await (const part of job) reply.raw.write(part);
 *     await job.result;
 *
 * The worker side is the heavy pool's (`serveHeavyTasks`), whose jobs are kept by id.
 */
import { Worker } from 'node:worker_threads';
import { defaultHeavyErrors, type HeavyErrors } from './contract.ts';
import { type FromHeavyWorker, PART_BATCH, type ToHeavyWorker } from './protocol.ts';

export interface StreamLaneOptions {
  /** The worker thread's entry module (it calls `serveHeavyTasks`). */
  entry: URL;
  /** The worker's old generation (every job of the lane together). */
  heapBytes: number;
  /**
   * The worker's young generation (the short-lived garbage of its jobs' pages before a scavenge);
   * `LANE_YOUNG_BYTES` by default: V8's own default lets it grow to tens of MB on a new thread.
   */
  youngBytes?: number;
  errors?: HeavyErrors;
}

export interface LaneJob {
  task: string;
  input: unknown;
  /** Aborting cancels the job (its task's next `emit` raises). */
  signal?: AbortSignal;
}

export interface LaneStream<P = unknown, R = unknown> extends AsyncIterable<P> {
  result: Promise<R>;
}

interface Running {
  id: number;
  parts: unknown[];
  taken: number;
  finished: boolean;
  failure?: unknown;
  wake?: (() => void) | undefined;
  settle: { resolve: (v: unknown) => void; reject: (e: unknown) => void };
}

const MB = 1024 * 1024;
/** The lane worker's young generation unless told (see `StreamLaneOptions.youngBytes`). */
export const LANE_YOUNG_BYTES = 8 * MB;

export class StreamLane {
  #worker: Worker | undefined;
  readonly #jobs = new Map<number, Running>();
  #nextId = 1;
  #closed = false;
  readonly #errors: HeavyErrors;

  constructor(private readonly options: StreamLaneOptions) {
    this.#errors = options.errors ?? defaultHeavyErrors;
  }

  /** Runs a job whose parts are consumed as they come; `result` settles when it has finished. */
  stream<P = unknown, R = unknown>(spec: LaneJob): LaneStream<P, R> {
    let settle!: Running['settle'];
    const result = new Promise<unknown>((resolve, reject) => (settle = { resolve, reject }));
    result.catch(() => undefined);
    const job: Running = { id: this.#nextId++, parts: [], taken: 0, finished: false, settle };
    const self = this;
    const stream: LaneStream<P, R> = {
      result: result as Promise<R>,
      async *[Symbol.asyncIterator]() {
        try {
          for (;;) {
            if (job.parts.length > 0) {
              const part = job.parts.shift();
              self.#ack(job);
              yield part as P;
              continue;
            }
            if (job.finished) {
              if (job.failure) throw job.failure;
              return;
            }
            await new Promise<void>((resolve) => (job.wake = resolve));
          }
        } finally {
          self.#cancel(job);
        }
      },
    };
    if (this.#closed) {
      this.#finish(job, this.#errors.unavailable('The service is stopping'));
      return stream;
    }
    if (spec.signal?.aborted) {
      this.#finish(job, spec.signal.reason);
      return stream;
    }
    spec.signal?.addEventListener('abort', () => this.#cancel(job), { once: true });
    this.#jobs.set(job.id, job);
    const message: ToHeavyWorker = { type: 'job', id: job.id, task: spec.task, input: spec.input };
    this.#ensure().postMessage(message);
    return stream;
  }

  /** Starts the worker before the first job needs it (its start then costs no job any time). */
  warm(): void {
    if (!this.#closed) this.#ensure();
  }

  /** Jobs running in the lane now (metrics, tests). */
  running(): number {
    return this.#jobs.size;
  }

  /** Stops the worker; running jobs fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    this.#failAll(this.#errors.unavailable('The service is stopping'));
    await worker?.terminate();
  }

  #ensure(): Worker {
    if (this.#worker) return this.#worker;
    const { heapBytes, youngBytes = LANE_YOUNG_BYTES } = this.options;
    const worker = new Worker(this.options.entry, {
      resourceLimits: {
        maxOldGenerationSizeMb: Math.max(16, Math.round(heapBytes / MB)),
        maxYoungGenerationSizeMb: Math.max(1, Math.round(youngBytes / MB)),
      },
    });
    worker.on('message', (message: FromHeavyWorker) => this.#onMessage(message));
    const stopped = (error: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      const outOfMemory = (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.#failAll(
        this.#errors.unavailable(
          outOfMemory
            ? 'The exports running at once needed more memory than they may use; try again shortly'
            : 'The export could not be finished; try again shortly',
        ),
      );
    };
    worker.on('error', stopped);
    worker.on('exit', (code) => stopped(new Error(`stream lane worker exited with code ${code}`)));
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  #onMessage(message: FromHeavyWorker): void {
    const job = this.#jobs.get(message.id);
    if (!job) return;
    if (message.type === 'part') {
      job.parts.push(message.part);
      this.#wake(job);
    } else if (message.type === 'done') this.#finish(job, undefined, message.result);
    else if (message.type === 'failed') this.#finish(job, this.#errors.failed(message.failure));
  }

  /** Tells the worker the consumer took a part (in batches, to spare messages). */
  #ack(job: Running): void {
    job.taken++;
    if (job.finished || !this.#worker) return;
    if (job.taken >= PART_BATCH || job.parts.length === 0) {
      const message: ToHeavyWorker = { type: 'ack', id: job.id, count: job.taken };
      this.#worker.postMessage(message);
      job.taken = 0;
    }
  }

  #cancel(job: Running): void {
    if (job.finished || !this.#worker) return;
    const message: ToHeavyWorker = { type: 'cancel', id: job.id };
    this.#worker.postMessage(message);
  }

  #failAll(error: Error): void {
    for (const job of [...this.#jobs.values()]) this.#finish(job, error);
  }

  #finish(job: Running, failure?: unknown, result?: unknown): void {
    if (job.finished) return;
    job.finished = true;
    this.#jobs.delete(job.id);
    if (failure !== undefined) {
      job.failure = failure;
      job.settle.reject(failure);
    } else job.settle.resolve(result);
    this.#wake(job);
  }

  #wake(job: Running): void {
    const wake = job.wake;
    job.wake = undefined;
    wake?.();
  }
}
