import type { CalculationErrorKind } from './calculation-error.ts';
import type { SandboxLimits } from './limits.ts';
import type { Coefficient, CoefficientOptions } from './session.ts';
import type { CalculationContext } from './types.ts';

/** Messages between the service (pool.ts) and the sandbox worker (worker.ts). */
export type ToWorker =
  | {
      type: 'open';
      /** Negative when the pool reopens a runner in a new worker for request `-requestId`. */
      requestId: number;
      runnerId: number;
      calcCode: string;
      metadataSchema: Record<string, unknown> | null;
      limits: SandboxLimits;
      freshContextPerCall: boolean;
    }
  | { type: 'calculate'; requestId: number; runnerId: number; inputs: unknown; context: CalculationContext }
  | { type: 'check'; requestId: number; calcCode: string }
  | { type: 'close'; runnerId: number }
  | { type: 'lookup-result'; lookupId: number; outcome: LookupOutcome };

export type FromWorker =
  | { type: 'done'; requestId: number; outcome: Outcome }
  | { type: 'lookup'; requestId: number; lookupId: number; key: string; options: CoefficientOptions };

export type SerializedError =
  | { kind: CalculationErrorKind; message: string; line?: number; column?: number }
  /** not the calculation's fault: a failed lookup or a bug */
  | { kind: 'host'; message: string };

export type Outcome = { ok: true; value: unknown } | { ok: false; error: SerializedError };

export type LookupOutcome =
  | { ok: true; value: Coefficient | null }
  /** `calculation`: calcCode sees the error (and may catch it); else the calculation fails. */
  | { ok: false; calculation: boolean; message: string };

/**
 * Slots of the BigInt64Array the worker shares with the pool: while guest code runs, `start` is
 * the Date.now() it started at (0 otherwise), `cpuMs` the calculation's CPU time before it,
 * `requestId` whose it is and `budgetMs` its CPU limit. The pool's watchdog reads them.
 */
export const METER = { start: 0, cpuMs: 1, requestId: 2, budgetMs: 3, size: 4 } as const;
