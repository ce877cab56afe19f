import { roundStored } from '../lib/numbers.ts';
import { resolveLimits, type SandboxLimits } from './limits.ts';
import type { RunnerState } from './pool.ts';
import type { CoefficientLookup } from './session.ts';
import { sandboxPool } from './shared-pool.ts';
import type { CalcDefinition, CalculationContext, CalculationResult, SyntaxProblem } from './types.ts';

export interface CalcRunnerOptions {
  limits?: Partial<SandboxLimits>;
  /** Backs `context.coefficient(key, {datasetId?, year?})`; without it every lookup finds null. */
  coefficient?: CoefficientLookup;
  /**
   * A new QuickJS context for every calculation instead of one context whose globals are reset
   * between calculations: much slower; for comparison, and as a fallback.
   */
  freshContextPerCall?: boolean;
  /** The queue its calculations wait in (an organization id): queues take turns for the workers. */
  queue?: string;
}

/**
 * One definition's calcCode, compiled once and run many times in the sandbox worker.
 * Calculations of one runner run one after another; calls may be issued concurrently (they queue,
 * and the queue keeps the worker busy, which is the fast way to run thousands).
 */
export interface CalcRunner {
  readonly limits: SandboxLimits;
  /**
   * The result, or a CalculationError (the calculation's fault: its code, its inputs or a limit).
   * Any other error is the service's (a failed coefficient lookup, a crashed sandbox).
   */
  calculate(
    inputs: unknown,
    context: CalculationContext,
    lookup?: CoefficientLookup,
  ): Promise<CalculationResult>;
  /** Frees the runner's QuickJS context; later calls fail. */
  dispose(): void;
}

const noLookup: CoefficientLookup = async () => null;

/**
 * Prepares a runner for `definition`. Rejects with a CalculationError (kind `code` or
 * `metadata`) when calcCode does not compile or metadataSchema is not a valid JSON Schema.
 */
export async function createCalcRunner(
  definition: CalcDefinition,
  options: CalcRunnerOptions = {},
): Promise<CalcRunner> {
  const pool = sandboxPool();
  const state: RunnerState = {
    id: pool.newRunnerId(),
    definition: { calcCode: definition.calcCode, metadataSchema: definition.metadataSchema ?? null },
    limits: resolveLimits(options.limits),
    freshContextPerCall: options.freshContextPerCall ?? false,
    lookup: options.coefficient ?? noLookup,
    closed: false,
    queue: options.queue ?? '',
  };
  await pool.open(state);
  return {
    limits: state.limits,
    // Results are rounded as every computed number the service stores (src/lib/numbers.ts).
    // `lookup`, when given, backs this calculation's lookups instead of `options.coefficient`.
    calculate: async (inputs, context, lookup) => {
      const result = await pool.calculate(state, inputs, context, lookup);
      return { ...result, value: roundStored(result.value) };
    },
    dispose: () => pool.close(state),
  };
}

/**
 * Runs `fn` with a runner for `definition` and disposes the runner afterwards.
 */
export async function withCalcRunner<T>(
  definition: CalcDefinition,
  options: CalcRunnerOptions,
  fn: (runner: CalcRunner) => Promise<T>,
): Promise<T> {
  const runner = await createCalcRunner(definition, options);
  try {
    return await fn(runner);
  } finally {
    runner.dispose();
  }
}

/**
 * Checks that calcCode compiles as the body of `async function calculate(inputs, context)`;
 * returns null when it does, else the problem and its position in calcCode (1-based).
 */
export function checkSyntax(calcCode: string): Promise<SyntaxProblem | null> {
  return sandboxPool().check(calcCode);
}
