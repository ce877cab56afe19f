import { describe, expect, it } from 'vitest';
import { uiCodeProblem } from './activity-definitions.ui-code.ts';

describe('uiCodeProblem', () => {
  it('accepts an empty body and a component body', () => {
    expect(uiCodeProblem('')).toBeNull();
    expect(uiCodeProblem('  \n ')).toBeNull();
    expect(uiCodeProblem("return h('div', null, values.litres ?? '');")).toBeNull();
    expect(uiCodeProblem('const f = (x) => x?.y ?? 1;\nreturn h("p", null, f(values));')).toBeNull();
  });

  it('names the line and column of the body (not of the wrapper)', () => {
    expect(uiCodeProblem('const a = 1;\nreturn h("div", null, a +);')).toBe(
      'uiCode: Unexpected token at line 2, column 26',
    );
    expect(uiCodeProblem('return (')).toMatch(/^uiCode: Unexpected token at line 2, column 1$/);
  });

  it('refuses a body that closes the function early', () => {
    expect(uiCodeProblem('return 1; }); fetch("/x"); (function () {')).toBe(
      'uiCode: the body closes the function before its end',
    );
  });

  it('never runs the body', () => {
    (globalThis as { uiCodeRan?: boolean }).uiCodeRan = false;
    expect(uiCodeProblem('globalThis.uiCodeRan = true;')).toBeNull();
    expect((globalThis as { uiCodeRan?: boolean }).uiCodeRan).toBe(false);
  });
});
