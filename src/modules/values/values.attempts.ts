import type { Tx } from '../../db/client.ts';
import { conflict } from '../../domain/errors.ts';
import type { TenantRun } from './element-types.ts';

/** How many times work done outside a transaction (calculations) is redone before a 409. */
export const MAX_ATTEMPTS = 3;

/** What one attempt ends with: its result, or work to do with no transaction held before the next. */
export type AttemptOutcome<T> = { done: T } | { compute: () => Promise<void> };

/**
 * Thrown by an attempt that has already written when it finds it needs work done first: its
 * transaction is rolled back (as for any throw), then `compute` runs and a new attempt starts.
 */
export class ComputeFirst extends Error {
  constructor(readonly compute: () => Promise<void>) {
    super('computations are needed before this write');
  }
}

/**
 * The one loop of every write that depends on calculations (submissions, activity PATCH,
 * recalculation batches, source imports): each attempt is a transaction (`run`); when it needs
 * work done first, the transaction ends, `compute` runs with no transaction held, and a new
 * attempt checks again that what the work depended on is unchanged. After `attempts`
 * computations whose basis kept changing: 409. An attempt that answers `compute` must have
 * written nothing (its transaction commits); one that has, throws `ComputeFirst` instead.
 */
export async function attemptThenCompute<T>(
  run: TenantRun,
  attempt: (tx: Tx) => Promise<AttemptOutcome<T>>,
  attempts = MAX_ATTEMPTS,
): Promise<T> {
  for (let computed = 0; ; computed += 1) {
    let outcome: AttemptOutcome<T>;
    try {
      outcome = await run(attempt);
    } catch (error) {
      if (!(error instanceof ComputeFirst)) throw error;
      outcome = { compute: error.compute };
    }
    if ('done' in outcome) return outcome.done;
    if (computed >= attempts) {
      throw conflict(
        'What the calculations depended on (definitions, sites, coefficients) kept changing; try again',
      );
    }
    await outcome.compute();
  }
}
