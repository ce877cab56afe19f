import type { FastifyReply } from 'fastify';
import type { Database } from '../../db/client.ts';
import { AppError } from '../../domain/errors.ts';
import {
  type BudgetScope,
  type BudgetSettings,
  claimNotice,
  pruneStale,
  refundAttempt,
  reserveAttempt,
} from './attempt-budget.repository.ts';

/**
 * The wait after the `n`th attempt, in seconds: none within the budget, then 1, 2, 4, … doubling
 * with each attempt, never above the cap. The same rule runs in SQL (`delaySql` in the
 * repository); this copy is for documentation and tests.
 */
export function backoffSeconds(
  n: number,
  settings: Pick<BudgetSettings, 'budget' | 'maxDelaySeconds'>,
): number {
  if (n < settings.budget) return 0;
  return Math.min(settings.maxDelaySeconds, 2 ** Math.min(n - settings.budget, 40));
}

/** The longest wait, for people: `15 minutes`, `90 seconds`. */
export function longestWait(settings: Pick<BudgetSettings, 'maxDelaySeconds'>): string {
  const s = settings.maxDelaySeconds;
  if (s % 60 === 0) return s === 60 ? '1 minute' : `${s / 60} minutes`;
  return s === 1 ? '1 second' : `${s} seconds`;
}

/** The budget of one kind of subject over the database: each step its own short transaction. */
export function attemptBudget(database: Database, scope: BudgetScope, settings: BudgetSettings) {
  return {
    settings,
    reserve: (subject: string, now: Date) =>
      database.system(async (tx) => {
        const reserved = await reserveAttempt(tx, scope, subject, now, settings);
        // A run starts: a moment to clear rows long quiet (they would start again at 1 anyway).
        if (reserved.admitted && reserved.attempts === 1) await pruneStale(tx, now, settings.quietMs);
        return reserved;
      }),
    refund: (subject: string, now: Date) => database.system((tx) => refundAttempt(tx, scope, subject, now)),
    claimNotice: (subject: string, attempts: number, now: Date) =>
      database.system((tx) => claimNotice(tx, scope, subject, attempts, now, settings)),
  };
}
export type AttemptBudget = ReturnType<typeof attemptBudget>;

/** 429 of an attempt that came before its wait was over; the route sends `Retry-After`. */
export class WaitBeforeRetry extends AppError {
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super('TOO_MANY_REQUESTS', message);
  }
}

/** Sets `Retry-After` when the error is a WaitBeforeRetry; rethrows it either way. */
export function withRetryAfter(reply: FastifyReply, error: unknown): never {
  if (error instanceof WaitBeforeRetry) reply.header('retry-after', String(error.retryAfter));
  throw error;
}
