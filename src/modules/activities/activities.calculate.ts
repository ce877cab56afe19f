import { isDeepStrictEqual } from 'node:util';
import type { Tx } from '../../db/client.ts';
import { badRequest } from '../../domain/errors.ts';
import { groupBy } from '../../lib/group-by.ts';
import {
  type CalcRunner,
  type CalculationContext,
  CalculationError,
  type CalculationResult,
  type Coefficient,
  type CoefficientLookup,
  createCalcRunner,
} from '../../sandbox/index.ts';
import { lookupCoefficient } from '../datasets/index.ts';
import type { TenantRun } from '../values/index.ts';
import { attemptThenCompute, MAX_ATTEMPTS } from '../values/index.ts';

/** A definition as calculations need it. */
export interface CalcSource {
  id: string;
  calcCode: string;
  metadataSchema: Record<string, unknown> | null;
}

export interface CalcJob {
  source: CalcSource;
  input: Record<string, unknown>;
  context: CalculationContext;
}

/** A coefficient a calculation looked up, as the activity records it (null fields: not found). */
export interface UsedCoefficient {
  key: string;
  datasetId: string | null;
  datasetItemId: string | null;
  year: number | null;
  value: number | null;
  unit: string | null;
}

/** A result with the coefficients its calculation looked up, in the order it asked for them. */
export interface CalcResult extends CalculationResult {
  coefficients: UsedCoefficient[];
}

/** A calculation's result, or why it failed (the calculation's own fault). */
export type CalcOutcome = CalcResult | CalculationError;

export const failed = (outcome: CalcOutcome): outcome is CalculationError =>
  outcome instanceof CalculationError;

/** The message of a failed calculation, for an issue. */
export const failureMessage = (error: CalculationError) => `the calculation failed: ${error.message}`;

/** Limits of the calculations of one request. */
export interface CalcLimits {
  /** Wall time during which the request has calculations under way, in all (SDCS_CALC_REQUEST_BUDGET_MS). */
  budgetMs: number;
}

export const DEFAULT_CALC_LIMITS: CalcLimits = { budgetMs: 5000 };
/** A definition whose calculations hit the time limit this often in a request fails the rest at once. */
export const BREAKER_TIMEOUTS = 3;
/** Calculations of one request in flight at once (the pool schedules them among organizations). */
const WINDOW = 4;

const sourceKey = (s: CalcSource) => JSON.stringify([s.id, s.calcCode, s.metadataSchema]);
const jobKey = (job: CalcJob) => JSON.stringify([sourceKey(job.source), job.input, job.context]);

interface Lookup {
  key: string;
  options: { datasetId?: string; year: number };
  found: Coefficient | null;
}

const toCoefficient = (c: Awaited<ReturnType<typeof lookupCoefficient>>): Coefficient | null =>
  c
    ? { value: c.value, unit: c.unit, year: c.year, datasetId: c.datasetId, datasetItemId: c.datasetItemId }
    : null;

/** The client went away: the request stops calculating (nothing is written). */
export const cancelled = () => badRequest('The request was cancelled: the client closed the connection');

/**
 * The calculations of one request, done outside any transaction: results are kept by what they
 * were computed from (definition code, input, context), and so are the coefficients they looked
 * up (each lookup in a short transaction of its own). In the write transaction, `verify` checks
 * the coefficients again and `outcomes` answers only for jobs computed from the same things;
 * whatever changed is computed again.
 *
 * Limits: a time budget for the request, a breaker per definition (after BREAKER_TIMEOUTS time
 * limits the rest of its jobs fail at once), and the client's disconnection (stops at once).
 */
export class CalcSession {
  private readonly results = new Map<string, CalcOutcome>();
  private readonly lookups = new Map<string, Lookup>();
  private readonly timeouts = new Map<string, number>();
  private readonly runners = new Map<string, Promise<CalcRunner | CalculationError>>();
  private year = 0;
  private inFlight = 0;
  private busySince = 0;
  private spentMs = 0;

  constructor(
    private readonly organizationId: string,
    private readonly run: TenantRun,
    private readonly signal: AbortSignal,
    private readonly limits: CalcLimits = DEFAULT_CALC_LIMITS,
  ) {}

  /** The outcome of each job when computed from the same things; undefined where not. */
  outcomes(jobs: CalcJob[]): (CalcOutcome | undefined)[] {
    return jobs.map((job) => this.results.get(jobKey(job)));
  }

  /** Jobs without an outcome. */
  missing(jobs: CalcJob[]): CalcJob[] {
    return jobs.filter((job) => !this.results.has(jobKey(job)));
  }

  /** In the write transaction: false (and everything forgotten) when a coefficient looked up has changed. */
  async verify(tx: Tx): Promise<boolean> {
    for (const lookup of this.lookups.values()) {
      const now = toCoefficient(await lookupCoefficient(tx, this.organizationId, lookup.key, lookup.options));
      if (!isDeepStrictEqual(now, lookup.found)) {
        this.results.clear();
        this.lookups.clear();
        return false;
      }
    }
    return true;
  }

  /** Computes the jobs that have no outcome yet; never inside a transaction. */
  async compute(jobs: CalcJob[]): Promise<void> {
    const todo = new Map<string, CalcJob>();
    for (const job of this.missing(jobs)) todo.set(jobKey(job), job);
    const byYear = groupBy(todo, ([, job]) => job.context.year);
    // A lookup without a year takes the year of the calculations in flight: one year at a time.
    for (const [year, entries] of byYear) {
      this.year = year;
      let next = 0;
      const lane = async () => {
        while (next < entries.length) {
          const [key, job] = entries[next++]!;
          this.results.set(key, await this.runOne(job));
        }
      };
      await Promise.all(Array.from({ length: Math.min(WINDOW, entries.length) }, lane));
    }
  }

  /** Starts the time budget again (recalculation: the budget applies per batch). */
  resetBudget(): void {
    this.spentMs = 0;
    if (this.inFlight > 0) this.busySince = Date.now();
  }

  /** Frees the runners. */
  async dispose(): Promise<void> {
    const runners = await Promise.allSettled(this.runners.values());
    for (const r of runners)
      if (r.status === 'fulfilled' && !(r.value instanceof CalculationError)) r.value.dispose();
    this.runners.clear();
  }

  private spent(): number {
    return this.spentMs + (this.inFlight > 0 ? Date.now() - this.busySince : 0);
  }

  private async runOne(job: CalcJob): Promise<CalcOutcome> {
    if (this.signal.aborted) throw cancelled();
    const tripped = this.timeouts.get(job.source.id) ?? 0;
    if (tripped >= BREAKER_TIMEOUTS) {
      return new CalculationError(
        'timeout',
        `skipped: ${tripped} calculations of this definition hit the time limit in this request`,
      );
    }
    if (this.spent() >= this.limits.budgetMs) {
      return new CalculationError(
        'timeout',
        `not run: this request's calculation time (${this.limits.budgetMs} ms in all) is used up`,
      );
    }
    if (this.inFlight++ === 0) this.busySince = Date.now();
    let outcome: CalcOutcome;
    // What this calculation looks up (through the session's shared cache), once per lookup.
    const used = new Map<string, UsedCoefficient>();
    const recording: CoefficientLookup = async (key, options) => {
      const found = await this.lookup(key, options);
      used.set(JSON.stringify([key, options.datasetId ?? null, options.year ?? null]), {
        key,
        datasetId: found?.datasetId ?? options.datasetId ?? null,
        datasetItemId: found?.datasetItemId ?? null,
        year: found?.year ?? null,
        value: found?.value ?? null,
        unit: found?.unit ?? null,
      });
      return found;
    };
    try {
      const runner = await this.runner(job.source);
      outcome =
        runner instanceof CalculationError
          ? runner
          : {
              ...(await runner.calculate(job.input, job.context, recording)),
              coefficients: [...used.values()],
            };
    } catch (error) {
      if (!(error instanceof CalculationError)) throw error;
      // Only the limit of a calculation itself counts (not the refusals above).
      if (error.kind === 'timeout')
        this.timeouts.set(job.source.id, (this.timeouts.get(job.source.id) ?? 0) + 1);
      outcome = error;
    } finally {
      if (--this.inFlight === 0) this.spentMs += Date.now() - this.busySince;
    }
    if (this.signal.aborted) throw cancelled();
    return outcome;
  }

  private runner(source: CalcSource): Promise<CalcRunner | CalculationError> {
    const key = sourceKey(source);
    let runner = this.runners.get(key);
    if (!runner) {
      runner = createCalcRunner(source, { coefficient: this.lookup, queue: this.organizationId }).catch(
        (error: unknown) => {
          if (error instanceof CalculationError) return error;
          throw error;
        },
      );
      // A failure to prepare surfaces when a job awaits the runner; never as an unhandled rejection.
      runner.catch(() => undefined);
      this.runners.set(key, runner);
    }
    return runner;
  }

  private readonly lookup: CoefficientLookup = async (key, options) => {
    const year = options.year ?? this.year;
    const datasetId = options.datasetId;
    const lookupOptions = datasetId === undefined ? { year } : { datasetId, year };
    const cacheKey = JSON.stringify([key, datasetId ?? null, year]);
    const known = this.lookups.get(cacheKey);
    if (known) return known.found;
    const found = toCoefficient(
      await this.run((tx) => lookupCoefficient(tx, this.organizationId, key, lookupOptions)),
    );
    this.lookups.set(cacheKey, { key, options: lookupOptions, found });
    return found;
  };
}

/**
 * Calculates with no transaction held and writes in a short one, again while what the
 * calculations depended on changed in between (the values pipeline's `attemptThenCompute`).
 * `attempt` runs in a transaction: it answers the jobs it needs, and writes when
 * `session.outcomes` has them all (after `session.verify`).
 */
export function calculateThenWrite<T>(
  session: CalcSession,
  run: TenantRun,
  attempt: (tx: Tx) => Promise<{ done: T } | { jobs: CalcJob[] }>,
  attempts = MAX_ATTEMPTS,
): Promise<T> {
  return attemptThenCompute(
    run,
    async (tx) => {
      const outcome = await attempt(tx);
      return 'done' in outcome ? outcome : { compute: () => session.compute(outcome.jobs) };
    },
    attempts,
  );
}
