import type { ValidateFunction } from 'ajv';
import {
  getQuickJS,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';
import { CalculationError, type CalculationErrorKind } from './calculation-error.ts';
import { calculationErrorOf, type GuestError, limitErrors } from './diagnostics.ts';
import { GuestContext } from './guest.ts';
import { resolveLimits, type SandboxLimits } from './limits.ts';
import { compileMetadataSchema, MetadataSchemaError, metadataErrorsText } from './metadata-schema.ts';
import { CalculationClock, type CoefficientLookup, type SegmentMeter } from './session.ts';
import type { CalcDefinition, CalculationContext, CalculationResult, SyntaxProblem } from './types.ts';

/** Per-calculation hooks: the lookup behind `context.coefficient`, and who to tell about CPU use. */
export interface CalculationHooks {
  lookup?: CoefficientLookup;
  meter?: SegmentMeter;
}

export interface LocalRunnerOptions {
  limits?: Partial<SandboxLimits>;
  /**
   * A new QuickJS context for every calculation instead of one context whose globals are reset
   * between calculations: about 20 times slower, for comparison and as a fallback.
   */
  freshContextPerCall?: boolean;
  /** Told about the CPU time of compiling calcCode (which may run code, see `compile`). */
  meter?: SegmentMeter;
}

/** After these, the context is used again (once its globals are reset). */
const ORDINARY_FAILURES: ReadonlySet<CalculationErrorKind> = new Set([
  'error',
  'result',
  'metadata',
  'output',
]);
const noLookup: CoefficientLookup = async () => null;

/**
 * Prepares a runner for `definition` in this thread: loads QuickJS, compiles calcCode once and
 * its metadataSchema once. Throws a CalculationError (kind `code` or `metadata`) when either is
 * unusable. QuickJS only checks its CPU limit between bytecode instructions, so a long native
 * operation can overrun it: the service runs this inside a worker that can be terminated
 * (see pool.ts); use it directly only for tests and benchmarks.
 */
export async function createLocalCalcRunner(
  definition: CalcDefinition,
  options: LocalRunnerOptions = {},
): Promise<LocalCalcRunner> {
  let validateMetadata: ValidateFunction | undefined;
  if (definition.metadataSchema) {
    try {
      validateMetadata = compileMetadataSchema(definition.metadataSchema);
    } catch (error) {
      if (error instanceof MetadataSchemaError) {
        throw new CalculationError('metadata', `metadataSchema ${error.message}`);
      }
      throw error;
    }
  }
  const runner = new LocalCalcRunner(
    await getQuickJS(),
    definition.calcCode,
    resolveLimits(options.limits),
    validateMetadata,
    options.freshContextPerCall ?? false,
  );
  runner.prepare(options.meter);
  return runner;
}

/**
 * Checks in this thread that calcCode compiles as the body of the calculation function, in a
 * throw-away sandbox. Returns null when it does.
 */
export async function checkSyntaxLocal(
  calcCode: string,
  meter?: SegmentMeter,
): Promise<SyntaxProblem | null> {
  const runner = new LocalCalcRunner(await getQuickJS(), calcCode, resolveLimits(), undefined, true, true);
  try {
    runner.prepare(meter);
    return null;
  } catch (error) {
    if (error instanceof CalculationError && error.kind === 'code') {
      return { message: error.message, line: error.line ?? 1, column: error.column ?? 1 };
    }
    throw error;
  } finally {
    runner.dispose();
  }
}

/**
 * Runs one definition's calcCode many times, one calculation after another (concurrent calls
 * queue), in one QuickJS runtime and (unless `freshContext`) one context reset between calls.
 */
export class LocalCalcRunner {
  private runtime: QuickJSRuntime | undefined;
  private guest: GuestContext | undefined;
  /** The clock of the calculation (or compilation) running now, read by the interrupt handler. */
  private clock: CalculationClock | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(
    private readonly quickjs: QuickJSWASMModule,
    private readonly calcCode: string,
    readonly limits: SandboxLimits,
    private readonly validateMetadata: ValidateFunction | undefined,
    private readonly freshContext: boolean,
    /** Only checks that calcCode compiles: no lockdown, never calculates. */
    private readonly compileOnly = false,
  ) {}

  /** Compiles calcCode now, so that a broken definition fails before its first calculation. */
  prepare(meter?: SegmentMeter): void {
    this.guest = this.open(meter);
  }

  /** The result, or a CalculationError; any other error is a failure of the host (a lookup). */
  calculate(
    inputs: unknown,
    context: CalculationContext,
    hooks: CalculationHooks = {},
  ): Promise<CalculationResult> {
    const result = this.queue.then(() => this.execute(inputs, context, hooks));
    this.queue = result.catch(() => undefined);
    return result;
  }

  dispose(): void {
    this.disposed = true;
    if (!this.clock) this.close(true);
  }

  private open(meter?: SegmentMeter): GuestContext {
    if (!this.runtime) {
      const runtime = this.quickjs.newRuntime();
      runtime.setMemoryLimit(this.limits.memoryBytes);
      runtime.setMaxStackSize(this.limits.stackBytes);
      runtime.setInterruptHandler(() => this.clock?.overBudget() ?? false);
      this.runtime = runtime;
    }
    const clock = new CalculationClock(this.limits, noLookup, meter);
    this.clock = clock;
    try {
      return GuestContext.open(this.runtime, this.calcCode, !this.compileOnly, clock);
    } finally {
      this.clock = undefined;
    }
  }

  private async execute(
    inputs: unknown,
    context: CalculationContext,
    hooks: CalculationHooks,
  ): Promise<CalculationResult> {
    if (this.disposed || this.compileOnly) throw new Error('this calculation runner has been disposed');
    this.guest ??= this.open(hooks.meter);
    const guest = this.guest;
    const clock = new CalculationClock(this.limits, hooks.lookup ?? noLookup, hooks.meter);
    let promise: QuickJSHandle | undefined;
    let reusable = false;
    let runtimeDamaged = false;
    this.clock = clock;
    try {
      promise = clock.measure(() => guest.start(clock, inputs, context, this.limits));
      for (;;) {
        clock.measure(() => guest.advance(clock));
        if (clock.timedOut) throw limitErrors.timeout(this.limits);
        if (clock.hostError) throw clock.hostError.error;
        const state = guest.state(promise);
        if (state.type === 'fulfilled') {
          const result = clock.measure(() => this.finish(state.text));
          reusable = !clock.jobError;
          return result;
        }
        if (state.type === 'rejected') throw calculationErrorOf(state.error, this.limits);
        if (clock.jobError) throw calculationErrorOf(clock.jobError, this.limits);
        if (clock.idle()) throw limitErrors.pending();
        const remaining = clock.wallTimeLeft();
        if (remaining <= 0) throw limitErrors.wallTimeout(this.limits);
        await clock.waitForLookups(remaining);
      }
    } catch (error) {
      if (error instanceof CalculationError) {
        reusable = ORDINARY_FAILURES.has(error.kind) && !clock.timedOut && !clock.jobError;
        runtimeDamaged = error.kind === 'memory';
        throw error;
      }
      if (error instanceof RangeError && !clock.hostError) {
        // The host's own stack overflowed inside QuickJS: its state cannot be trusted any more.
        this.abandon();
        throw limitErrors.stack();
      }
      throw error;
    } finally {
      clock.finish();
      guest.end();
      if (promise?.alive) promise.dispose();
      this.clock = undefined;
      if (this.guest === guest) this.afterCall(guest, reusable, runtimeDamaged);
    }
  }

  /** The harness's string: `'1' + {value, metadata}` or `'0' + a problem`. */
  private finish(text: string): CalculationResult {
    const body = text.slice(1);
    if (text.startsWith('1')) {
      const size = Buffer.byteLength(body);
      if (size > this.limits.outputBytes) {
        throw new CalculationError(
          'output',
          `the result is ${size} bytes of JSON, more than the limit of ${this.limits.outputBytes}`,
        );
      }
      const result = JSON.parse(body) as CalculationResult;
      if (this.validateMetadata && !this.validateMetadata(result.metadata)) {
        throw new CalculationError(
          'metadata',
          `metadata does not match metadataSchema: ${metadataErrorsText(this.validateMetadata.errors)}`,
        );
      }
      return result;
    }
    const problem = JSON.parse(body) as { kind: string; message?: string; error?: GuestError };
    if (problem.kind === 'thrown') throw calculationErrorOf(problem.error ?? {}, this.limits);
    throw new CalculationError(problem.kind as CalculationErrorKind, problem.message ?? 'calculation failed');
  }

  /** Keeps the context for the next calculation when that is safe, else replaces it. */
  private afterCall(guest: GuestContext, reusable: boolean, runtimeDamaged: boolean): void {
    if (reusable && !this.freshContext && !this.disposed && this.resetGlobals(guest)) return;
    this.close(runtimeDamaged || this.disposed);
  }

  private resetGlobals(guest: GuestContext): boolean {
    const clock = new CalculationClock(this.limits, noLookup);
    this.clock = clock;
    try {
      return clock.measure(() => guest.reset()) && !clock.timedOut;
    } catch {
      return false;
    } finally {
      this.clock = undefined;
    }
  }

  private close(withRuntime: boolean): void {
    const guest = this.guest;
    this.guest = undefined;
    try {
      guest?.dispose();
      if (withRuntime && this.runtime) {
        this.runtime.dispose();
        this.runtime = undefined;
      }
    } catch {
      this.abandon();
    }
  }

  /** Drops a runtime whose state is unknown without disposing it (that could abort QuickJS). */
  private abandon(): void {
    this.guest = undefined;
    this.runtime = undefined;
  }
}
