import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../domain/clock.ts';
import { type ClaimedJob, jobsRepository as repo } from './jobs.repository.ts';

/** Runs one job; a throw is a failed attempt (retried later, unless it is a `PermanentJobError`). */
export type JobHandler = (job: ClaimedJob) => Promise<void>;

/** A failure that another attempt cannot mend (the record the job was about is gone): no retry. */
export class PermanentJobError extends Error {}

/** Milliseconds to wait after failed attempt `attempt` (1-based). */
export type Backoff = (attempt: number) => number;

/** Finished (done or failed) jobs are kept this long, for the metrics and for looking into. */
export const KEEP_FINISHED_MS = 7 * 24 * 3_600_000;

/** The recurring job that prunes finished jobs, hourly, by one process. */
export const PRUNE_JOB = 'jobs.prune';

/** 5 s, 20 s, 80 s, … ×4 each time, at most 12 hours apart. */
export const exponentialBackoff: Backoff = (attempt) => Math.min(5_000 * 4 ** (attempt - 1), 12 * 3_600_000);

export interface RunnerOptions {
  /** How long a claimed job is the worker's; after that another worker may claim it again. */
  leaseMs?: number;
  /** How often the worker looks for due jobs when it runs on its own (`start`). */
  pollMs?: number;
  /** Jobs claimed at once. */
  batch?: number;
  /** Names the worker in the `locked_by` column (tests name theirs). */
  worker?: string;
}

/**
 * Claims due jobs and runs their handlers (decision 216): at most one worker holds a job at a
 * time (FOR UPDATE SKIP LOCKED), a job whose worker died is claimed again when its lease runs
 * out, and a failed attempt comes back after its back-off until its attempts are spent.
 */
export class JobRunner {
  private readonly handlers = new Map<string, { run: JobHandler; backoff: Backoff }>();
  readonly worker: string;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly batch: number;
  private running: Promise<number> | undefined;
  /** Recurring kinds: their interval and the last slot this runner offered. */
  private readonly recurring = new Map<string, { everyMs: number; offered: number }>();
  /** A round now, while started. */
  private poked: (() => void) | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    options: RunnerOptions = {},
  ) {
    this.worker = options.worker ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.leaseMs = options.leaseMs ?? 120_000;
    this.pollMs = options.pollMs ?? 1_000;
    this.batch = options.batch ?? 8;
  }

  /** Says which handler runs jobs of `kind`, and how long to wait after each failed attempt. */
  handle(kind: string, run: JobHandler, backoff: Backoff = exponentialBackoff): this {
    this.handlers.set(kind, { run, backoff });
    return this;
  }

  /**
   * Runs `kind` once per `everyMs` across all processes: each round offers the job of the current
   * slot (`floor(now / everyMs)`) under one key, which only the first process gets to insert.
   */
  every(kind: string, everyMs: number, run: JobHandler): this {
    this.recurring.set(kind, { everyMs, offered: -1 });
    return this.handle(kind, run, () => Math.min(everyMs / 4, 60_000));
  }

  /**
   * Claims the jobs due now and runs them; answers how many ran. Calls made while a round is
   * under way wait for it and answer 0 (one round at a time per runner).
   */
  async runOnce(): Promise<number> {
    if (this.running) {
      await this.running.catch(() => undefined);
      return 0;
    }
    this.running = this.round();
    try {
      return await this.running;
    } finally {
      this.running = undefined;
    }
  }

  /** Runs rounds until none is due (tests: everything due now, and what it enqueued). */
  async drain(maxRounds = 100): Promise<number> {
    let total = 0;
    for (let i = 0; i < maxRounds; i++) {
      const ran = await this.runOnce();
      if (ran === 0) break;
      total += ran;
    }
    return total;
  }

  private async round(): Promise<number> {
    const kinds = [...this.handlers.keys()];
    if (kinds.length === 0) return 0;
    const now = this.clock();
    for (const [kind, r] of this.recurring) {
      const slot = Math.floor(now.getTime() / r.everyMs);
      if (slot === r.offered) continue;
      await this.database.system((tx) => repo.offer(tx, kind, `${kind}@${slot}`, 3, now));
      r.offered = slot;
    }
    const leaseEnd = new Date(now.getTime() + this.leaseMs);
    const jobs = await this.database.system((tx) =>
      repo.claim(tx, kinds, this.worker, now, leaseEnd, this.batch),
    );
    await Promise.all(jobs.map((job) => this.attempt(job)));
    return jobs.length;
  }

  private async attempt(job: ClaimedJob): Promise<void> {
    const handler = this.handlers.get(job.kind)!;
    let outcome: { state: 'done' | 'failed' | 'queued'; runAfter?: Date; error?: string };
    // A job that takes longer than its lease (a large import) keeps it while this process lives:
    // only a job whose process died is claimed again (decision 0234).
    const renew = setInterval(() => {
      const leaseEnd = new Date(this.clock().getTime() + this.leaseMs);
      this.database.system((tx) => repo.extend(tx, job, this.worker, leaseEnd)).catch(() => undefined);
    }, this.leaseMs / 3);
    renew.unref();
    try {
      await handler.run(job);
      outcome = { state: 'done' };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const last = error instanceof PermanentJobError || job.attempts >= job.max_attempts;
      outcome = last
        ? { state: 'failed', error: message.slice(0, 1000) }
        : {
            state: 'queued',
            error: message.slice(0, 1000),
            runAfter: new Date(this.clock().getTime() + handler.backoff(job.attempts)),
          };
    } finally {
      clearInterval(renew);
    }
    await this.database.system((tx) => repo.finish(tx, job, this.worker, outcome, this.clock()));
  }

  /** Resolves once the round under way (if any) has ended. */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  /** Removes finished jobs older than `KEEP_FINISHED_MS` (the hourly `PRUNE_JOB`). */
  prune(): Promise<void> {
    const before = new Date(this.clock().getTime() - KEEP_FINISHED_MS);
    return this.database.system((tx) => repo.prune(tx, before));
  }

  /** Polls every `pollMs` until the returned function is called (the server, not in-process tests). */
  start(log: FastifyBaseLogger): () => void {
    const round = () => this.runOnce().catch((error) => log.error({ err: error }, 'job round failed'));
    const timer = setInterval(round, this.pollMs);
    timer.unref();
    this.poked = () => void round();
    return () => {
      clearInterval(timer);
      this.poked = undefined;
    };
  }

  /**
   * Looks for due jobs now rather than at the next poll, when this runner polls (`start`): a
   * request that has just queued a job it answers for (an accepted import). Tests drain instead.
   */
  poke(): void {
    this.poked?.();
  }
}
