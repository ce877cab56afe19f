import type { QuickJSDeferredPromise } from 'quickjs-emscripten';
import type { GuestError } from './diagnostics.ts';
import type { SandboxLimits } from './limits.ts';

/** A coefficient as `context.coefficient` returns it. */
export interface Coefficient {
  value: number;
  unit: string | null;
  /** Where the value came from, so calcCode can record it in its metadata. */
  year?: number;
  datasetId?: string;
  datasetItemId?: string;
}

export interface CoefficientOptions {
  datasetId?: string;
  year?: number;
}

/** The host side of `context.coefficient(key, {datasetId?, year?})`. */
export type CoefficientLookup = (key: string, options: CoefficientOptions) => Promise<Coefficient | null>;

/** Checks what a lookup returned; a lookup that returns something else is a bug of the host. */
export function normalizeCoefficient(found: unknown): Coefficient | null {
  if (found === null || found === undefined) return null;
  const { value, unit, year, datasetId, datasetItemId } = found as Record<string, unknown>;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new TypeError('the coefficient lookup returned a value that is not a finite number');
  }
  const out: Coefficient = { value, unit: typeof unit === 'string' ? unit : null };
  if (Number.isInteger(year)) out.year = year as number;
  if (typeof datasetId === 'string') out.datasetId = datasetId;
  if (typeof datasetItemId === 'string') out.datasetItemId = datasetItemId;
  return out;
}

/** Told when a calculation starts and stops executing guest code (a watchdog reads it). */
export interface SegmentMeter {
  /** `cpuMs`: the CPU time this calculation used before this segment. */
  start(cpuMs: number): void;
  end(): void;
}

type Outcome = { ok: true; value: Coefficient | null } | { ok: false; error: unknown };

/**
 * The state of one calculation: CPU time spent inside QuickJS (measured segment by segment, so
 * that waiting for lookups does not count), the wall-clock deadline, and the lookups in flight.
 */
export class CalculationClock {
  timedOut = false;
  finished = false;
  /** A lookup failed in the host (not a CalculationError): the calculation fails with it. */
  hostError: { error: unknown } | undefined;
  /** A pending job raised outside any promise (QuickJS reports it from executePendingJobs). */
  jobError: GuestError | undefined;
  private cpuMs = 0;
  private segmentStart = 0;
  private inflight = 0;
  private settled: { deferred: QuickJSDeferredPromise; outcome: Outcome }[] = [];
  private wake: (() => void) | undefined;
  private readonly wallDeadline: number;

  constructor(
    private readonly limits: SandboxLimits,
    readonly lookup: CoefficientLookup,
    private readonly meter?: SegmentMeter,
  ) {
    this.wallDeadline = performance.now() + limits.wallTimeMs;
  }

  /** Runs `fn` (which executes guest code) and counts its time. */
  measure<T>(fn: () => T): T {
    if (this.segmentStart !== 0) return fn();
    this.meter?.start(this.cpuMs);
    this.segmentStart = performance.now();
    try {
      return fn();
    } finally {
      this.cpuMs += performance.now() - this.segmentStart;
      this.segmentStart = 0;
      this.meter?.end();
    }
  }

  /** The interrupt handler's question: has this calculation used up its CPU time? */
  overBudget(): boolean {
    if (!this.timedOut && this.segmentStart !== 0) {
      this.timedOut = this.cpuMs + performance.now() - this.segmentStart > this.limits.cpuTimeMs;
    }
    return this.timedOut;
  }

  /** Follows a lookup; `discard` runs instead when it settles after the calculation ended. */
  track(deferred: QuickJSDeferredPromise, found: Promise<Coefficient | null>, discard: () => void): void {
    this.inflight += 1;
    found
      .then(
        (value): Outcome => ({ ok: true, value }),
        (error): Outcome => ({ ok: false, error }),
      )
      .then((outcome) => {
        this.inflight -= 1;
        if (this.finished) {
          try {
            discard();
          } catch {
            // the context is gone already
          }
          return;
        }
        this.settled.push({ deferred, outcome });
        this.wake?.();
      });
  }

  takeSettled() {
    return this.settled.splice(0);
  }

  /** No lookup in flight and none waiting to be handed over. */
  idle(): boolean {
    return this.inflight === 0 && this.settled.length === 0;
  }

  wallTimeLeft(): number {
    return this.wallDeadline - performance.now();
  }

  /** Resolves when a lookup settles, or after `ms`. */
  waitForLookups(ms: number): Promise<void> {
    if (this.settled.length > 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  finish(): void {
    this.finished = true;
    this.wake?.();
  }
}
