import { afterEach, describe, expect, it } from 'vitest';
import { configureSandboxLimits, DEFAULT_LIMITS, resolveLimits } from './limits.ts';

afterEach(() => configureSandboxLimits({}));

describe('sandbox limits', () => {
  it('start from the process configuration, and a runner may still override them', () => {
    configureSandboxLimits({ cpuTimeMs: 120, memoryBytes: 64 * 1024 * 1024 });
    expect(resolveLimits()).toMatchObject({ cpuTimeMs: 120, memoryBytes: 64 * 1024 * 1024 });
    expect(resolveLimits({ cpuTimeMs: 10 }).cpuTimeMs).toBe(10);
    configureSandboxLimits({});
    expect(resolveLimits()).toEqual(DEFAULT_LIMITS);
  });

  it('refuse limits that are not sane', () => {
    expect(() => configureSandboxLimits({ cpuTimeMs: 0 })).toThrow(RangeError);
    expect(() => resolveLimits({ stackBytes: 1024 * 1024 })).toThrow(/stackBytes/);
  });
});
