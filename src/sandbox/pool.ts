import { Worker } from 'node:worker_threads';
import { CalculationError } from './calculation-error.ts';
import { limitErrors, notOneFunction } from './diagnostics.ts';
import { FairQueue } from './fair-queue.ts';
import { DEFAULT_LIMITS, type SandboxLimits } from './limits.ts';
import { type FromWorker, METER, type SerializedError, type ToWorker } from './protocol.ts';
import type { CoefficientLookup } from './session.ts';
import type { CalcDefinition, CalculationContext, CalculationResult, SyntaxProblem } from './types.ts';

/** How often the watchdog looks at the worker while requests are open. */
const WATCH_INTERVAL_MS = 20;
/**
 * QuickJS checks its CPU limit only every few thousand instructions, so a loop over long native
 * operations (repeat, fill, sort on megabytes) can overrun it by seconds. The watchdog
 * terminates the worker when guest code has run this long past the limit.
 */
const HARD_KILL_GRACE_MS = 250;
/** A request that was not at fault is sent again after a restart, at most this often. */
const MAX_ATTEMPTS = 3;

/** A runner as the pool knows it, enough to open it again in a new worker. */
export interface RunnerState {
  id: number;
  definition: CalcDefinition;
  limits: SandboxLimits;
  freshContextPerCall: boolean;
  lookup: CoefficientLookup;
  closed: boolean;
  /** The queue its calculations wait in (the organization): queues take turns for the workers. */
  queue: string;
}

interface SandboxWorker {
  worker: Worker;
  meter: BigInt64Array;
  /** Runners opened in this worker. */
  opened: Set<number>;
  retired: boolean;
  /** Requests sent and not answered. */
  inFlight: number;
}

/** Requests a worker holds at once: one, so that a waiting organization is next in line. */
const PER_WORKER = 1;

interface Request {
  message: Extract<ToWorker, { requestId: number }>;
  runner?: RunnerState;
  budgetMs: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  attempts: number;
  sentTo?: SandboxWorker;
  /** The service's own error from a lookup; the request fails with it. */
  hostError?: { error: unknown };
  /** This calculation's own lookup (it records what it found), instead of the runner's. */
  lookup?: CoefficientLookup;
}

/**
 * Runs calculations in a few worker threads (QuickJS never runs on the service's event loop),
 * with a watchdog that terminates a worker when a calculation overruns its CPU limit in a way
 * QuickJS cannot interrupt (requests of other calculations in that worker are sent again).
 *
 * Fair between organizations: every request waits in its organization's queue, and the queues
 * take turns (round robin) whenever a worker has room, so one organization's runaway
 * calculations delay another's by at most the calculations already in the workers.
 */
export class SandboxPool {
  private readonly workers: (SandboxWorker | undefined)[];
  /** Waiting requests, one queue per organization, taken in turns. */
  private readonly queue = new FairQueue<Request>();
  private readonly requests = new Map<number, Request>();
  private nextRequestId = 1;
  private nextRunnerId = 1;
  private watchdog: NodeJS.Timeout | undefined;
  /** Requests answered so far (for tests and metrics). */
  completed = 0;

  constructor(size = 1) {
    this.workers = new Array(Math.max(1, size)).fill(undefined);
  }

  /** Worker threads (started on demand). */
  get size(): number {
    return this.workers.length;
  }

  /** Requests waiting for a worker, over all queues. */
  get waiting(): number {
    return this.queue.size;
  }

  /** Starts every worker and waits until they run (start-up, so that no request pays for it). */
  async warm(): Promise<void> {
    const starting: Promise<unknown>[] = [];
    for (let slot = 0; slot < this.workers.length; slot++) {
      if (this.workers[slot]) continue;
      const { worker } = this.spawn(slot);
      starting.push(new Promise((resolve) => worker.once('online', resolve).once('exit', resolve)));
    }
    // Compile something once in each: the QuickJS module loads on first use.
    await Promise.all(starting);
    await Promise.all(this.workers.map(() => this.check('return 1')));
  }

  newRunnerId(): number {
    return this.nextRunnerId++;
  }

  /** Compiles the runner's definition in the worker; rejects with its CalculationError. */
  async open(runner: RunnerState): Promise<void> {
    await this.request(
      {
        type: 'open',
        requestId: 0,
        runnerId: runner.id,
        calcCode: runner.definition.calcCode,
        metadataSchema: runner.definition.metadataSchema ?? null,
        limits: runner.limits,
        freshContextPerCall: runner.freshContextPerCall,
      },
      runner,
    );
  }

  calculate(
    runner: RunnerState,
    inputs: unknown,
    context: CalculationContext,
    lookup?: CoefficientLookup,
  ): Promise<CalculationResult> {
    if (runner.closed) return Promise.reject(new Error('this calculation runner has been disposed'));
    return this.request(
      { type: 'calculate', requestId: 0, runnerId: runner.id, inputs, context },
      runner,
      lookup,
    ) as Promise<CalculationResult>;
  }

  async check(calcCode: string): Promise<SyntaxProblem | null> {
    try {
      return (await this.request({ type: 'check', requestId: 0, calcCode })) as SyntaxProblem | null;
    } catch (error) {
      if (!(error instanceof CalculationError)) throw error;
      return { message: error.message, line: error.line ?? 1, column: error.column ?? 1 };
    }
  }

  close(runner: RunnerState): void {
    if (runner.closed) return;
    runner.closed = true;
    for (const sandbox of this.workers) {
      if (sandbox?.opened.delete(runner.id))
        sandbox.worker.postMessage({ type: 'close', runnerId: runner.id });
    }
  }

  /** Stops the workers; open and waiting requests fail. The next request starts new ones. */
  async shutdown(): Promise<void> {
    const error = new Error('the calculation sandbox was shut down');
    for (const request of this.queue.drain()) request.reject(error);
    for (const sandbox of this.workers) {
      if (!sandbox) continue;
      this.retire(sandbox);
      this.failAll(sandbox, error);
      await sandbox.worker.terminate();
    }
  }

  private request(
    message: Request['message'],
    runner?: RunnerState,
    lookup?: CoefficientLookup,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const budgetMs = runner?.limits.cpuTimeMs ?? DEFAULT_LIMITS.cpuTimeMs;
      this.enqueue({
        message,
        runner,
        budgetMs,
        resolve,
        reject,
        attempts: 1,
        ...(lookup ? { lookup } : {}),
      });
    });
  }

  private enqueue(request: Request, first = false): void {
    this.queue.add(request.runner?.queue ?? '', request, first);
    this.dispatch();
  }

  /** Gives workers with room the next request of each queue in turn. */
  private dispatch(): void {
    for (;;) {
      if (this.queue.size === 0) return;
      const slot = this.freeSlot();
      if (slot < 0) return;
      const request = this.queue.take()!;
      if (request.runner?.closed && request.message.type === 'calculate') {
        request.reject(new Error('this calculation runner has been disposed'));
        continue;
      }
      this.submit(request, slot);
    }
  }

  /** The least busy worker with room (starting one if none runs there); -1 when all are full. */
  private freeSlot(): number {
    let best = -1;
    let load = PER_WORKER;
    for (const [i, sandbox] of this.workers.entries()) {
      const busy = sandbox?.inFlight ?? 0;
      if (busy < load) {
        best = i;
        load = busy;
      }
    }
    return best;
  }

  private submit(request: Request, slot: number): void {
    const requestId = this.nextRequestId++;
    request.message = { ...request.message, requestId };
    const sandbox = this.workers[slot] ?? this.spawn(slot);
    const { runner, message } = request;
    try {
      if (runner && message.type === 'calculate' && !sandbox.opened.has(runner.id)) {
        // A new worker: open the runner again first (its compile is metered as this request).
        sandbox.worker.postMessage({
          type: 'open',
          requestId: -requestId,
          runnerId: runner.id,
          calcCode: runner.definition.calcCode,
          metadataSchema: runner.definition.metadataSchema ?? null,
          limits: runner.limits,
          freshContextPerCall: runner.freshContextPerCall,
        } satisfies ToWorker);
      }
      sandbox.worker.postMessage(message);
    } catch (error) {
      request.reject(error);
      return;
    }
    if (runner) sandbox.opened.add(runner.id);
    request.sentTo = sandbox;
    sandbox.inFlight += 1;
    this.requests.set(requestId, request);
    this.watch();
  }

  private spawn(slot: number): SandboxWorker {
    const meter = new BigInt64Array(new SharedArrayBuffer(8 * METER.size));
    const worker = new Worker(new URL('./worker-entry.mjs', import.meta.url), {
      workerData: { meter: meter.buffer },
    });
    const sandbox: SandboxWorker = { worker, meter, opened: new Set(), retired: false, inFlight: 0 };
    worker.on('message', (message: FromWorker) => this.onMessage(sandbox, message));
    worker.on('error', (error) => this.onStopped(sandbox, error));
    worker.on('exit', (code) => this.onStopped(sandbox, new Error(`exit code ${code}`)));
    worker.unref();
    this.workers[slot] = sandbox;
    return sandbox;
  }

  private onMessage(sandbox: SandboxWorker, message: FromWorker): void {
    const request = this.requests.get(message.requestId);
    if (!request || request.sentTo !== sandbox) return;
    if (message.type === 'done') {
      this.requests.delete(message.requestId);
      sandbox.inFlight -= 1;
      this.completed += 1;
      this.watch();
      this.dispatch();
      if (message.outcome.ok) request.resolve(message.outcome.value);
      else request.reject(errorOf(message.outcome.error, request));
      return;
    }
    const { lookupId } = message;
    const lookup = request.lookup ?? request.runner?.lookup ?? (async () => null);
    Promise.resolve()
      .then(() => lookup(message.key, message.options))
      .then(
        (value) => ({ ok: true as const, value: value ?? null }),
        (error: unknown) => {
          if (error instanceof CalculationError) {
            return { ok: false as const, calculation: true, message: error.message };
          }
          request.hostError ??= { error };
          return {
            ok: false as const,
            calculation: false,
            message: String((error as Error)?.message ?? error),
          };
        },
      )
      .then((outcome) => {
        if (!sandbox.retired) sandbox.worker.postMessage({ type: 'lookup-result', lookupId, outcome });
      });
  }

  private onStopped(sandbox: SandboxWorker, error: Error): void {
    if (sandbox.retired) return;
    this.retire(sandbox);
    this.failAll(sandbox, new Error(`the calculation sandbox stopped unexpectedly: ${error.message}`));
  }

  /** Runs the watchdog while requests are open; holds the process open only while they are. */
  private watch(): void {
    const busy = this.requests.size > 0;
    if (busy && !this.watchdog) {
      this.watchdog = setInterval(() => {
        for (const sandbox of this.workers) if (sandbox) this.inspect(sandbox);
      }, WATCH_INTERVAL_MS);
      for (const sandbox of this.workers) sandbox?.worker.ref();
    } else if (!busy && this.watchdog) {
      clearInterval(this.watchdog);
      this.watchdog = undefined;
      for (const sandbox of this.workers) sandbox?.worker.unref();
    }
  }

  private inspect(sandbox: SandboxWorker): void {
    if (sandbox.retired) return;
    const start = Number(Atomics.load(sandbox.meter, METER.start));
    if (start === 0) return;
    const used = Number(Atomics.load(sandbox.meter, METER.cpuMs)) + (Date.now() - start);
    if (used <= Number(Atomics.load(sandbox.meter, METER.budgetMs)) + HARD_KILL_GRACE_MS) return;
    const culprit = Math.abs(Number(Atomics.load(sandbox.meter, METER.requestId)));
    this.retire(sandbox);
    void sandbox.worker.terminate();
    for (const [requestId, request] of [...this.requests]) {
      if (request.sentTo !== sandbox) continue;
      this.requests.delete(requestId);
      if (requestId === culprit) {
        request.reject(timeoutOf(request));
      } else if (request.attempts < MAX_ATTEMPTS && !request.runner?.closed) {
        request.attempts += 1;
        this.enqueue(request, true);
      } else {
        request.reject(new Error('the calculation sandbox had to be restarted too often'));
      }
    }
    this.watch();
    this.dispatch();
  }

  private retire(sandbox: SandboxWorker): void {
    sandbox.retired = true;
    const slot = this.workers.indexOf(sandbox);
    if (slot >= 0) this.workers[slot] = undefined;
    if (this.watchdog) {
      clearInterval(this.watchdog);
      this.watchdog = undefined;
    }
  }

  private failAll(sandbox: SandboxWorker, error: Error): void {
    for (const [requestId, request] of [...this.requests]) {
      if (request.sentTo !== sandbox) continue;
      this.requests.delete(requestId);
      request.reject(error);
    }
    this.watch();
    this.dispatch();
  }
}

function timeoutOf(request: Request): CalculationError {
  const limits = request.runner?.limits ?? DEFAULT_LIMITS;
  if (request.message.type === 'calculate') return limitErrors.timeout(limits);
  // Compiling ran code: calcCode closed the wrapper function and ran something of its own.
  return notOneFunction();
}

function errorOf(error: SerializedError, request: Request): unknown {
  if (error.kind === 'host') {
    return request.hostError?.error ?? new Error(`calculation sandbox: ${error.message}`);
  }
  return new CalculationError(error.kind, error.message, error.line, error.column);
}
