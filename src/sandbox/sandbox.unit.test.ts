import { afterAll, describe, expect, it } from 'vitest';
import { context, failure, run } from '../../test/helpers/sandbox.ts';
import { CalculationError, createCalcRunner, resolveLimits, shutdownSandbox } from './index.ts';

afterAll(() => shutdownSandbox());

describe('calculations', () => {
  it('return a number as {value, metadata: {}}', async () => {
    expect(await run('return inputs.a * 2', { a: 21 })).toEqual({ value: 42, metadata: {} });
  });

  it('return {value, metadata} as given', async () => {
    const result = await run('return { value: inputs.kwh * 0.4, metadata: { factor: 0.4, note: "grid" } }', {
      kwh: 10,
    });
    expect(result).toEqual({ value: 4, metadata: { factor: 0.4, note: 'grid' } });
  });

  it('see year, periodUnit and the site in context', async () => {
    const result = await run(
      'return { value: context.year * 100 + context.periodUnit, metadata: { site: context.site } }',
    );
    expect(result).toEqual({ value: 202503, metadata: { site: context.site } });
  });

  it('look coefficients up through the host callback, with datasetId and year', async () => {
    const calls: unknown[] = [];
    const coefficient = async (key: string, options: object) => {
      calls.push({ key, ...options });
      return key === 'diesel' ? { value: 2.68, unit: 'kgCO2e/L' } : null;
    };
    const result = await run(
      `const f = await context.coefficient('diesel', { datasetId: 'ds-1', year: 2024 });
       const none = await context.coefficient('petrol');
       return { value: inputs.litres * f.value, metadata: { unit: f.unit, none } };`,
      { litres: 100 },
      { coefficient },
    );
    expect(result.value).toBeCloseTo(268);
    expect(result.metadata).toEqual({ unit: 'kgCO2e/L', none: null });
    expect(calls).toEqual([{ key: 'diesel', datasetId: 'ds-1', year: 2024 }, { key: 'petrol' }]);
  });

  it('take a bare year as the second argument of context.coefficient', async () => {
    const calls: unknown[] = [];
    const coefficient = async (key: string, options: object) => {
      calls.push({ key, ...options });
      return { value: 0.2, unit: 'kgCO2e' };
    };
    const result = await run(
      "return (await context.coefficient('grid_uk', 2023)).value * 10",
      {},
      { coefficient },
    );
    expect(result.value).toBe(2);
    expect(calls).toEqual([{ key: 'grid_uk', year: 2023 }]);
  });

  it('find no coefficient without a lookup callback', async () => {
    expect(await run('return (await context.coefficient("x")) === null ? 1 : 0')).toEqual({
      value: 1,
      metadata: {},
    });
  });

  it('do not count time spent waiting for lookups against the CPU limit', async () => {
    const slow = () =>
      new Promise<{ value: number; unit: string }>((r) => setTimeout(() => r({ value: 2, unit: 'u' }), 300));
    const result = await run(
      'const a = await context.coefficient("a"); return a.value * 3',
      {},
      { coefficient: slow },
    );
    expect(result.value).toBe(6);
  });

  it('may look up several coefficients at once', async () => {
    const coefficient = async (key: string) => ({ value: key.length, unit: null });
    const result = await run(
      'const [a, b] = await Promise.all([context.coefficient("ab"), context.coefficient("abcd")]); return a.value + b.value',
      {},
      { coefficient },
    );
    expect(result.value).toBe(6);
  });

  it('fail when lookups keep them waiting past the wall-clock limit', async () => {
    const never = () => new Promise<null>(() => {});
    const error = await failure(
      'return (await context.coefficient("x")).value',
      {},
      {
        coefficient: never,
        limits: { wallTimeMs: 200 },
      },
    );
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('200 ms');
  });

  it('limit the number of lookups per calculation', async () => {
    const error = await failure(
      'for (let i = 0; i < 5; i++) await context.coefficient("k"); return 1',
      {},
      {
        limits: { maxCoefficientCalls: 3 },
      },
    );
    expect(error.message).toContain('at most 3 times');
  });

  it('drop a lookup the calculation did not await; the next calculation is unaffected', async () => {
    let release: (v: { value: number; unit: null }) => void = () => {};
    const slowFirst = (key: string) =>
      key === 'slow'
        ? new Promise<{ value: number; unit: null }>((r) => (release = r))
        : Promise.resolve(null);
    const runner = await createCalcRunner(
      {
        calcCode:
          'if (inputs.first) { context.coefficient("slow").then(() => { globalThis.late = 1 }) } return typeof late === "undefined" ? 1 : 2',
      },
      { coefficient: slowFirst },
    );
    expect((await runner.calculate({ first: true }, context)).value).toBe(1);
    release({ value: 1, unit: null });
    expect((await runner.calculate({ first: false }, context)).value).toBe(1);
    runner.dispose();
  });

  it('reject bad coefficient arguments as a calculation error', async () => {
    const error = await failure('return (await context.coefficient("k", { year: "2024" })).value');
    expect(error.message).toContain('options.year must be an integer');
  });

  it('let calcCode catch a lookup failure meant for it, and fail with the host’s own error otherwise', async () => {
    const refusing = async () => {
      throw new CalculationError('error', 'unknown dataset');
    };
    const caught = await run(
      'try { await context.coefficient("k", { datasetId: "nope" }); return 0 } catch (e) { return e.message === "unknown dataset" ? 1 : 2 }',
      {},
      { coefficient: refusing },
    );
    expect(caught.value).toBe(1);

    const databaseDown = new Error('connection lost');
    const broken = async () => {
      throw databaseDown;
    };
    const error = await run(
      'return (await context.coefficient("k")).value',
      {},
      { coefficient: broken },
    ).catch((e: unknown) => e);
    expect(error).toBe(databaseDown);
  });
});

describe('failures are values with a clear message', () => {
  it('a runaway loop times out', async () => {
    const error = await failure('while (true) {}');
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe('Calculation timed out after 50 ms');
  });

  it('a runaway loop after an await times out', async () => {
    expect((await failure('await null; for (;;) {}')).message).toBe('Calculation timed out after 50 ms');
  });

  it('the CPU limit is configurable', async () => {
    const error = await failure('for (;;) {}', {}, { limits: { cpuTimeMs: 20 } });
    expect(error.message).toBe('Calculation timed out after 20 ms');
  });

  it('a huge allocation runs out of memory', async () => {
    // A generous CPU limit: under load, the allocation must fail on memory, never on time first.
    const error = await failure(
      'const a = new Array(1e8).fill(0); return a.length',
      {},
      {
        limits: { cpuTimeMs: 5000, wallTimeMs: 30_000 },
      },
    );
    expect(error.kind).toBe('memory');
    expect(error.message).toBe('Calculation ran out of memory (limit 32 MiB)');
  });

  it('a loop of long native operations is stopped by the watchdog', async () => {
    const started = Date.now();
    const error = await failure('const a = []; for (;;) a.push("x".repeat(1 << 20) + a.length)');
    expect(error.message).toBe('Calculation timed out after 50 ms');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('deep recursion exceeds the stack limit', async () => {
    const error = await failure('function f(n) { return f(n + 1) + 1 } return f(0)');
    expect(error.kind).toBe('stack');
    expect(error.message).toBe('Calculation exceeded the stack limit (recursion too deep)');
  });

  it('a thrown error names its line in calcCode', async () => {
    const error = await failure('const x = 1;\n\n  throw new Error("boom")');
    expect(error.kind).toBe('error');
    expect(error.message).toBe('line 3: Error: boom');
    expect(error.line).toBe(3);
    expect(error.column).toBeGreaterThan(0);
  });

  it('a TypeError names its line too', async () => {
    expect((await failure('\nreturn inputs.missing.value')).message).toMatch(/^line 2: TypeError: /);
  });

  it.each([
    ['return NaN', 'result must be a finite number, got NaN'],
    ['return Infinity', 'result must be a finite number, got Infinity'],
    ['return "12"', 'result must be a finite number, got a string'],
    ['const x = 1', 'result must be a finite number, got undefined'],
    ['return { value: -Infinity }', 'result.value must be a finite number, got -Infinity'],
    ['return { metadata: {} }', 'result.value must be a finite number, got undefined'],
    ['return [1]', 'result must be a finite number, got an array'],
  ])('%s is not a result', async (calcCode, message) => {
    const error = await failure(calcCode);
    expect(error.kind).toBe('result');
    expect(error.message).toBe(message);
  });

  it('metadata must be an object that JSON can hold', async () => {
    expect((await failure('return { value: 1, metadata: [1] }')).message).toBe(
      'result.metadata must be an object, got an array',
    );
    expect((await failure('const m = {}; m.self = m; return { value: 1, metadata: m }')).kind).toBe(
      'metadata',
    );
  });

  it('a promise that never settles is an error, not a hang', async () => {
    const error = await failure('await new Promise(() => {}); return 1');
    expect(error.kind).toBe('pending');
    expect(error.message).toContain('never');
  });

  it('a result larger than the output limit is refused', async () => {
    const error = await failure('return { value: 1, metadata: { text: "x".repeat(70000) } }');
    expect(error.kind).toBe('output');
    const small = await failure(
      'return { value: 1, metadata: { text: "x".repeat(100) } }',
      {},
      { limits: { outputBytes: 64 } },
    );
    expect(small.kind).toBe('output');
  });
});

describe('a runner', () => {
  it('runs many calculations, also concurrently issued, in order', async () => {
    const runner = await createCalcRunner({ calcCode: 'return inputs.i * 2' });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => runner.calculate({ i }, context)),
    );
    expect(results.map((r) => r.value)).toEqual(Array.from({ length: 200 }, (_, i) => i * 2));
    runner.dispose();
  });

  it('keeps going after a failed calculation', async () => {
    const runner = await createCalcRunner({ calcCode: 'if (inputs.loop) for (;;) {} return 7' });
    await expect(runner.calculate({ loop: true }, context)).rejects.toThrow('timed out');
    expect((await runner.calculate({ loop: false }, context)).value).toBe(7);
    runner.dispose();
  });

  it('refuses calculations once disposed', async () => {
    const runner = await createCalcRunner({ calcCode: 'return 1' });
    runner.dispose();
    await expect(runner.calculate({}, context)).rejects.toThrow('disposed');
  });

  it('refuses calcCode that does not compile, with its position', async () => {
    const error = await createCalcRunner({ calcCode: 'return 1 +' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CalculationError);
    expect((error as CalculationError).kind).toBe('code');
  });

  it('refuses calcCode that closes the function early to run code at compile time', async () => {
    const error = await createCalcRunner({ calcCode: '}, globalThis.leak = 1, function () {' }).catch(
      (e: unknown) => e,
    );
    expect((error as CalculationError).message).toContain('must be the body of one function');
  });

  it('checks metadata against metadataSchema', async () => {
    const metadataSchema = {
      type: 'object',
      properties: { factor: { type: 'number' } },
      required: ['factor'],
    };
    const runner = await createCalcRunner({
      calcCode: 'return { value: 1, metadata: inputs.m }',
      metadataSchema,
    });
    expect(await runner.calculate({ m: { factor: 2 } }, context)).toEqual({
      value: 1,
      metadata: { factor: 2 },
    });
    const error = await runner.calculate({ m: { factor: 'two' } }, context).catch((e: unknown) => e);
    expect((error as CalculationError).kind).toBe('metadata');
    expect((error as CalculationError).message).toBe(
      'metadata does not match metadataSchema: metadata/factor must be number',
    );
    runner.dispose();
  });

  it('refuses a metadataSchema that is not JSON Schema', async () => {
    const error = await createCalcRunner({
      calcCode: 'return 1',
      metadataSchema: { type: 'nonsense' },
    }).catch((e: unknown) => e);
    expect((error as CalculationError).kind).toBe('metadata');
  });

  it('lets an innocent calculation finish when the watchdog restarts the worker', async () => {
    const innocent = await createCalcRunner({ calcCode: 'return inputs.a * 3' });
    const culprit = await createCalcRunner({ calcCode: 'for (;;) "x".repeat(1 << 22)' });
    const [bad, good] = await Promise.allSettled([
      culprit.calculate({}, context),
      innocent.calculate({ a: 5 }, context),
    ]);
    expect(bad.status === 'rejected' && (bad.reason as CalculationError).kind).toBe('timeout');
    expect(good).toEqual({ status: 'fulfilled', value: { value: 15, metadata: {} } });
    innocent.dispose();
    culprit.dispose();
  });
});

describe('limits', () => {
  it('are validated', () => {
    expect(resolveLimits({ cpuTimeMs: 10 }).cpuTimeMs).toBe(10);
    expect(() => resolveLimits({ stackBytes: 1024 * 1024 })).toThrow('at most');
    expect(() => resolveLimits({ memoryBytes: -1 })).toThrow('must be an integer');
  });
});
