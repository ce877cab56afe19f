import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
} from 'quickjs-emscripten';
import { CalculationError } from './calculation-error.ts';
import { calculationErrorOf, type GuestError, notOneFunction, syntaxProblemOf } from './diagnostics.ts';
import { CALC_FILE, calcFunctionSource, harnessSource } from './harness.ts';
import type { SandboxLimits } from './limits.ts';
import { type CalculationClock, type Coefficient, normalizeCoefficient } from './session.ts';

/** An error handle as a plain object; QuickJS may be unable to describe it when out of memory. */
export function dumpError(vm: QuickJSContext, handle: QuickJSHandle): GuestError {
  try {
    const dumped = vm.dump(handle) as unknown;
    return typeof dumped === 'object' && dumped !== null
      ? (dumped as GuestError)
      : { message: String(dumped) };
  } catch {
    return { name: 'InternalError', message: 'out of memory' };
  }
}

/** How the harness's promise stands. */
export type HarnessState =
  | { type: 'pending' }
  | { type: 'fulfilled'; text: string }
  | { type: 'rejected'; error: GuestError };

/**
 * One QuickJS context with the harness installed and calcCode compiled into it, and the
 * handles the host holds on it (every one is disposed with it: a leaked handle would make
 * disposing the runtime abort QuickJS).
 */
export class GuestContext {
  /** The calculation running now: lookups of calcCode belong to it. */
  private clock: CalculationClock | undefined;
  /** Promises handed to calcCode for lookups and not settled yet. */
  private readonly deferreds = new Set<QuickJSDeferredPromise>();
  private readonly lookup: QuickJSHandle;

  private constructor(
    readonly vm: QuickJSContext,
    private readonly run: QuickJSHandle,
    private readonly resetGlobals: QuickJSHandle,
    private readonly calc: QuickJSHandle,
  ) {
    this.lookup = vm.newFunction('lookup', (key, datasetId, year) => this.startLookup(key, datasetId, year));
  }

  /**
   * A new context for `calcCode`, with the harness (and its lockdown unless only compiling).
   * `clock` must be the one the runtime's interrupt handler reads. Throws CalculationError `code`.
   */
  static open(
    runtime: QuickJSRuntime,
    calcCode: string,
    lockdown: boolean,
    clock: CalculationClock,
  ): GuestContext {
    const vm = runtime.newContext();
    const owned: QuickJSHandle[] = [];
    try {
      const harness = vm.unwrapResult(vm.evalCode(harnessSource(lockdown), 'sdcs-harness'));
      const run = vm.getProp(harness, 'run');
      const reset = vm.getProp(harness, 'reset');
      const verify = vm.getProp(harness, 'verify');
      harness.dispose();
      owned.push(run, reset, verify);
      const calc = compile(vm, verify, calcCode, clock);
      verify.dispose();
      return new GuestContext(vm, run, reset, calc);
    } catch (error) {
      for (const handle of owned) if (handle.alive) handle.dispose();
      vm.dispose();
      throw error;
    }
  }

  /** Calls the harness for one calculation: a promise handle of the harness's result string. */
  start(clock: CalculationClock, inputs: unknown, context: unknown, limits: SandboxLimits): QuickJSHandle {
    const { vm } = this;
    this.clock = clock;
    const args = [
      vm.newString(JSON.stringify(inputs ?? {})),
      vm.newString(JSON.stringify(context ?? {})),
      vm.newNumber(limits.outputBytes),
      vm.newNumber(limits.maxCoefficientCalls),
    ] as const;
    try {
      const result = vm.callFunction(
        this.run,
        vm.undefined,
        this.calc,
        args[0],
        args[1],
        this.lookup,
        args[2],
        args[3],
      );
      if (!result.error) return result.value;
      const info = dumpError(vm, result.error);
      result.error.dispose();
      throw calculationErrorOf(info, limits);
    } finally {
      for (const arg of args) arg.dispose();
    }
  }

  /** Hands finished lookups to calcCode and runs every pending job (until the CPU limit). */
  advance(clock: CalculationClock): void {
    const { vm } = this;
    for (const { deferred, outcome } of clock.takeSettled()) {
      this.deferreds.delete(deferred);
      if (!deferred.alive) continue;
      if (outcome.ok && outcome.value === null) deferred.resolve(vm.null);
      else if (outcome.ok) {
        const found = vm.newString(JSON.stringify(outcome.value));
        deferred.resolve(found);
        found.dispose();
      } else if (outcome.error instanceof CalculationError) {
        const error = vm.newError({ name: 'Error', message: outcome.error.message });
        deferred.reject(error);
        error.dispose();
      } else {
        clock.hostError ??= { error: outcome.error };
      }
      deferred.dispose();
    }
    const runtime = vm.runtime;
    while (!clock.timedOut && runtime.hasPendingJob()) {
      const ran = runtime.executePendingJobs();
      if (ran.error) {
        clock.jobError ??= dumpError(vm, ran.error);
        ran.error.dispose();
      }
    }
  }

  state(promise: QuickJSHandle): HarnessState {
    const state = this.vm.getPromiseState(promise);
    if (state.type === 'pending') return { type: 'pending' };
    if (state.type === 'fulfilled') {
      const text = this.vm.getString(state.value);
      state.value.dispose();
      return { type: 'fulfilled', text };
    }
    const error = dumpError(this.vm, state.error);
    state.error.dispose();
    return { type: 'rejected', error };
  }

  /** The calculation is over: lookups still in flight are dropped when they settle. */
  end(): void {
    this.clock = undefined;
  }

  /** Deletes the globals the last calculation created; false when the context must go. */
  reset(): boolean {
    const { vm } = this;
    const result = vm.callFunction(this.resetGlobals, vm.undefined);
    const ok = !result.error && vm.dump(result.value) === true;
    (result.error ?? result.value).dispose();
    return ok && !vm.runtime.hasPendingJob();
  }

  dispose(): void {
    for (const deferred of this.deferreds) if (deferred.alive) deferred.dispose();
    this.deferreds.clear();
    for (const handle of [this.lookup, this.calc, this.run, this.resetGlobals]) {
      if (handle.alive) handle.dispose();
    }
    this.vm.dispose();
  }

  /** `context.coefficient` in the guest lands here: a guest promise that `advance` settles. */
  private startLookup(
    keyHandle: QuickJSHandle | undefined,
    datasetHandle: QuickJSHandle | undefined,
    yearHandle: QuickJSHandle | undefined,
  ): QuickJSHandle {
    const { vm, clock } = this;
    if (!clock || clock.finished || !keyHandle) throw new Error('no calculation is running');
    const key = vm.getString(keyHandle);
    const options: { datasetId?: string; year?: number } = {};
    if (datasetHandle && vm.typeof(datasetHandle) === 'string')
      options.datasetId = vm.getString(datasetHandle);
    if (yearHandle && vm.typeof(yearHandle) === 'number') options.year = vm.getNumber(yearHandle);
    const deferred = vm.newPromise();
    this.deferreds.add(deferred);
    let found: Promise<Coefficient | null>;
    try {
      found = Promise.resolve(clock.lookup(key, options));
    } catch (error) {
      found = Promise.reject(error);
    }
    clock.track(deferred, found.then(normalizeCoefficient), () => {
      // The calculation ended without awaiting this lookup: nobody will read it.
      this.deferreds.delete(deferred);
      if (deferred.alive) deferred.dispose();
    });
    return deferred.handle;
  }
}

/**
 * Evaluates the calculation function. calcCode could close the function early and run code
 * of its own at this point (`}, sideEffect(), function () {`): the result must be a function
 * whose source is exactly the wrapped calcCode, and the context is discarded otherwise.
 */
function compile(
  vm: QuickJSContext,
  verify: QuickJSHandle,
  calcCode: string,
  clock: CalculationClock,
): QuickJSHandle {
  const source = calcFunctionSource(calcCode);
  const compiled = clock.measure(() => vm.evalCode(`(${source})`, CALC_FILE));
  if (compiled.error) {
    const info = dumpError(vm, compiled.error);
    compiled.error.dispose();
    if (info.name === 'SyntaxError') {
      const problem = syntaxProblemOf(info);
      throw new CalculationError('code', problem.message, problem.line, problem.column);
    }
    throw notOneFunction();
  }
  const expected = vm.newString(source);
  const checked = clock.measure(() => vm.callFunction(verify, vm.undefined, compiled.value, expected));
  expected.dispose();
  const ok = !checked.error && vm.dump(checked.value) === true;
  (checked.error ?? checked.value).dispose();
  if (!ok) {
    compiled.value.dispose();
    throw notOneFunction();
  }
  return compiled.value;
}
