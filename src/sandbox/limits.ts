/**
 * Resource limits of one calculation. Memory, stack and CPU time are set together: with a
 * larger stack (or none) deep recursion overflows the host's stack instead of QuickJS's, and
 * near the memory limit allocation slows down until the deadline stops it.
 */
export interface SandboxLimits {
  /** Time spent executing calcCode per calculation; waiting for host lookups is not counted. */
  cpuTimeMs: number;
  /** Heap of the QuickJS runtime. */
  memoryBytes: number;
  /** QuickJS stack; at most 256 KiB (above that, recursion can overflow the host stack). */
  stackBytes: number;
  /** Size of the result (`{value, metadata}`) as JSON. */
  outputBytes: number;
  /** Whole calculation, including waits for `context.coefficient`. */
  wallTimeMs: number;
  /** `context.coefficient` calls per calculation. */
  maxCoefficientCalls: number;
}

export const MAX_STACK_BYTES = 256 * 1024;

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  cpuTimeMs: 50,
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: MAX_STACK_BYTES,
  outputBytes: 64 * 1024,
  wallTimeMs: 10_000,
  maxCoefficientCalls: 1000,
});

const MINIMUM: SandboxLimits = {
  cpuTimeMs: 1,
  memoryBytes: 4 * 1024 * 1024,
  stackBytes: 16 * 1024,
  outputBytes: 64,
  wallTimeMs: 1,
  maxCoefficientCalls: 0,
};

let processDefaults: Partial<SandboxLimits> = {};

/**
 * Sets the limits every runner of this process starts from (the service sets them from its
 * configuration at start-up); a runner's own `limits` still override them.
 */
export function configureSandboxLimits(overrides: Partial<SandboxLimits>): void {
  resolveLimits(overrides);
  processDefaults = { ...overrides };
}

/** The defaults with `overrides` applied; throws on a limit that is not a sane integer. */
export function resolveLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  const limits = { ...DEFAULT_LIMITS, ...processDefaults, ...overrides };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof SandboxLimits)[]) {
    const value = limits[key];
    if (!Number.isSafeInteger(value) || value < MINIMUM[key]) {
      throw new RangeError(`sandbox limit ${key} must be an integer >= ${MINIMUM[key]}, got ${value}`);
    }
  }
  if (limits.stackBytes > MAX_STACK_BYTES) {
    throw new RangeError(`sandbox limit stackBytes must be at most ${MAX_STACK_BYTES}`);
  }
  return limits;
}
