import { afterAll, describe, expect, it } from 'vitest';
import { context, failure, run } from '../../test/helpers/sandbox.ts';
import {
  type CalcRunner,
  CalculationError,
  checkSyntax,
  createCalcRunner,
  shutdownSandbox,
} from './index.ts';

afterAll(() => shutdownSandbox());

describe('the sandbox has nothing of the host', () => {
  it.each([
    ['return this.constructor.constructor("return process")()', 'ReferenceError: process is not defined'],
    ['return require("fs")', 'ReferenceError: require is not defined'],
    ['return await fetch("http://example.com")', 'ReferenceError: fetch is not defined'],
    ['setTimeout(() => 1, 1); return 1', 'ReferenceError: setTimeout is not defined'],
    ['return eval("1")', 'ReferenceError: eval is not defined'],
  ])('%s', async (calcCode, message) => {
    expect((await failure(calcCode)).message).toBe(`line 1: ${message}`);
  });

  it('Function("return this")() is the sandbox’s own global object', async () => {
    const result = await run(
      `const g = Function('return this')();
       return ['process', 'require', 'fetch', 'setTimeout', 'Buffer', 'globalThis'].filter((n) => typeof g[n] !== 'undefined').length`,
    );
    expect(result.value).toBe(1); // only globalThis itself
  });

  it('the process stays healthy after every kind of failure', async () => {
    const codes = [
      'while (true) {}',
      'const a = new Array(1e8).fill(0)',
      'function f() { return f() } f()',
      'await new Promise(() => {})',
      'for (;;) "x".repeat(1 << 22)',
    ];
    const runner = await createCalcRunner({ calcCode: 'return inputs.a + 1' });
    for (const calcCode of codes) {
      await expect(run(calcCode)).rejects.toBeInstanceOf(CalculationError);
      expect(await runner.calculate({ a: 1 }, context)).toEqual({ value: 2, metadata: {} });
    }
    runner.dispose();
  });
});

describe.each([
  ['one context, reset between calculations', false],
  ['a fresh context per calculation', true],
])('calculations are isolated from each other (%s)', (_label, freshContextPerCall) => {
  let runner: CalcRunner;
  const calc = async (step: string) => (await runner.calculate({ step }, context)).value;

  it('leave nothing behind in globals, prototypes or the function', async () => {
    runner = await createCalcRunner(
      {
        calcCode: `
          if (inputs.step === 'write') {
            globalThis.counter = 1; implicitGlobal = 2; calculate.state = 3;
            try { Array.prototype.sum = function () { return 9 } } catch (e) {}
            try { Object.prototype.polluted = true } catch (e) {}
            try { Math.PI = 3 } catch (e) {}
            Promise.resolve().then(() => { globalThis.late = 4 });
            return 0;
          }
          return [typeof counter, typeof implicitGlobal, typeof calculate.state, typeof [].sum,
                  typeof ({}).polluted, typeof late].filter((t) => t !== 'undefined').length
                 + (Math.PI === 3 ? 100 : 0);`,
      },
      { freshContextPerCall },
    );
    expect(await calc('write')).toBe(0);
    expect(await calc('read')).toBe(0);
    runner.dispose();
  });

  it('survive attempts to make globals permanent', async () => {
    runner = await createCalcRunner(
      {
        calcCode: `
          if (inputs.step === 'pin') {
            Object.defineProperty(globalThis, 'pinned', { value: 1, configurable: false });
            return 0;
          }
          if (inputs.step === 'proto') { Object.setPrototypeOf(globalThis, { inherited: 1 }); return 0 }
          if (inputs.step === 'seal') { Object.preventExtensions(globalThis); return 0 }
          created = 1;
          return (typeof pinned === 'undefined' ? 0 : 1) + (typeof inherited === 'undefined' ? 0 : 10);`,
      },
      { freshContextPerCall },
    );
    for (const step of ['pin', 'proto', 'seal']) {
      expect(await calc(step)).toBe(0);
      expect(await calc('check')).toBe(0);
    }
    runner.dispose();
  });

  it('keep ordinary JavaScript working: classes, custom errors, toString overrides', async () => {
    runner = await createCalcRunner(
      {
        calcCode: `
          class Fuel { constructor(f) { this.factor = f } toString() { return 'Fuel ' + this.factor } }
          class InputError extends Error { constructor(m) { super(m); this.name = 'InputError' } }
          const o = {}; o.toString = () => 'custom'; o.constructor = 'mine';
          const e = new InputError('bad');
          const fuel = new Fuel(2);
          return { value: fuel.factor * inputs.step.length,
                   metadata: { s: String(fuel), o: String(o), name: e.name, ok: e instanceof Error } };`,
      },
      { freshContextPerCall },
    );
    expect(await runner.calculate({ step: 'abc' }, context)).toEqual({
      value: 6,
      metadata: { s: 'Fuel 2', o: 'custom', name: 'InputError', ok: true },
    });
    runner.dispose();
  });
});

describe('checkSyntax', () => {
  it('accepts a valid body, including await and return', async () => {
    expect(
      await checkSyntax('const f = await context.coefficient("x");\nreturn inputs.a * (f?.value ?? 1)'),
    ).toBeNull();
  });

  it('gives the line and column of a syntax error in calcCode', async () => {
    const problem = await checkSyntax('const a = 1;\nconst b = ;\nreturn a');
    expect(problem).toMatchObject({ line: 2, column: expect.any(Number) });
    expect(problem?.message).toMatch(/^SyntaxError: .*\(line 2, column \d+\)$/);
  });

  it('counts columns on the first line from the start of calcCode', async () => {
    expect(await checkSyntax('return )')).toMatchObject({ line: 1, column: 8 });
  });

  it('refuses a body that closes the function early', async () => {
    const problem = await checkSyntax('return 1 }, (function () { for (;;) {} })(), function () {');
    expect(problem?.message).toContain('must be the body of one function');
  });
});
