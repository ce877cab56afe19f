import type { Tx } from '../../db/client.ts';
import {
  type CalcRunner,
  type CalculationContext,
  CalculationError,
  type CalculationResult,
  type Coefficient,
  type CoefficientLookup,
  createCalcRunner,
} from '../../sandbox/index.ts';
import { lookupCoefficient } from '../datasets/coefficients.repository.ts';

/** A definition as calculations need it. */
export interface CalcSource {
  id: string;
  calcCode: string;
  metadataSchema: Record<string, unknown> | null;
}

export interface CalcJob {
  definitionId: string;
  input: Record<string, unknown>;
  context: CalculationContext;
}

/** A calculation's result, or why it failed (the calculation's own fault). */
export type CalcOutcome = CalculationResult | CalculationError;

export const failed = (outcome: CalcOutcome): outcome is CalculationError =>
  outcome instanceof CalculationError;

/**
 * The calculations of one request: one prepared runner per definition, and coefficient lookups
 * in the organization, cached for the request. A lookup without a year takes the year of the
 * calculations in flight: `run` runs one year's jobs at a time for that reason (the runner's
 * lookup callback does not know which calculation asks).
 */
export class Calculations {
  private year = 0;
  private readonly runners = new Map<string, Promise<CalcRunner | CalculationError>>();
  private readonly cache = new Map<string, Promise<Coefficient | null>>();
  private readonly lookup: CoefficientLookup;

  constructor(tx: Tx, organizationId: string) {
    this.lookup = (key, options) => {
      const year = options.year ?? this.year;
      const datasetId = options.datasetId;
      const cacheKey = JSON.stringify([key, datasetId ?? null, year]);
      let found = this.cache.get(cacheKey);
      if (!found) {
        found = lookupCoefficient(
          tx,
          organizationId,
          key,
          datasetId === undefined ? { year } : { datasetId, year },
        ).then((c) =>
          c
            ? {
                value: c.value,
                unit: c.unit,
                year: c.year,
                datasetId: c.datasetId,
                datasetItemId: c.datasetItemId,
              }
            : null,
        );
        this.cache.set(cacheKey, found);
        found.catch(() => this.cache.delete(cacheKey));
      }
      return found;
    };
  }

  /** Compiles a definition once; a calcCode that does not compile fails each of its jobs. */
  prepare(definition: CalcSource): void {
    if (this.runners.has(definition.id)) return;
    const runner = createCalcRunner(definition, { coefficient: this.lookup }).catch((error: unknown) => {
      if (error instanceof CalculationError) return error;
      throw error;
    });
    // A failure to prepare surfaces when a job awaits the runner; never as an unhandled rejection.
    runner.catch(() => undefined);
    this.runners.set(definition.id, runner);
  }

  /**
   * Runs the jobs, grouped by the year of their context, all of a year at once (the runner
   * queues them). Outcomes come in job order; errors that are not the calculation's fault
   * (a database failure in a lookup) reject.
   */
  async run(jobs: CalcJob[]): Promise<CalcOutcome[]> {
    const outcomes: CalcOutcome[] = new Array(jobs.length);
    const byYear = new Map<number, number[]>();
    jobs.forEach((job, i) => {
      const list = byYear.get(job.context.year);
      if (list) list.push(i);
      else byYear.set(job.context.year, [i]);
    });
    for (const [year, indexes] of byYear) {
      this.year = year;
      await Promise.all(
        indexes.map(async (i) => {
          outcomes[i] = await this.runOne(jobs[i]!);
        }),
      );
    }
    return outcomes;
  }

  private async runOne(job: CalcJob): Promise<CalcOutcome> {
    const runner = await this.runners.get(job.definitionId);
    if (!runner) throw new Error(`no runner prepared for definition ${job.definitionId}`);
    if (runner instanceof CalculationError) return runner;
    try {
      return await runner.calculate(job.input, job.context);
    } catch (error) {
      if (error instanceof CalculationError) return error;
      throw error;
    }
  }

  /** Frees every runner (also those whose preparation is still under way). */
  async dispose(): Promise<void> {
    const runners = await Promise.allSettled(this.runners.values());
    for (const r of runners)
      if (r.status === 'fulfilled' && !(r.value instanceof CalculationError)) r.value.dispose();
    this.runners.clear();
  }
}

/** Runs `fn` with a Calculations object, disposed afterwards. */
export async function withCalculations<T>(
  tx: Tx,
  organizationId: string,
  fn: (calculations: Calculations) => Promise<T>,
): Promise<T> {
  const calculations = new Calculations(tx, organizationId);
  try {
    return await fn(calculations);
  } finally {
    await calculations.dispose();
  }
}

/** The message of a failed calculation, for an issue. */
export const failureMessage = (error: CalculationError) => `the calculation failed: ${error.message}`;
