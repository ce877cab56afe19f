import { describe, expect, it } from 'vitest';
import { evaluate, type Resolved } from './evaluate.ts';
import { ExpressionError, type ExpressionToken, parseExpression } from './parse.ts';

const n = (value: string): ExpressionToken => ({ type: 'number', value });
const op = (value: string): ExpressionToken => ({ type: 'operator', value });
const p = (value: string): ExpressionToken => ({ type: 'parenthesis', value });
const el = (value: string): ExpressionToken => ({ type: 'formElement', value });
const item = (value: string): ExpressionToken => ({ type: 'datasetItem', value });

const kWh = { id: 'kwh', symbol: 'kWh', dimension: 'energy', factor_to_base: 1 };
const MWh = { id: 'mwh', symbol: 'MWh', dimension: 'energy', factor_to_base: 1000 };
const kg = { id: 'kg', symbol: 'kg', dimension: 'mass', factor_to_base: 1 };

function run(parts: ExpressionToken[], values: Record<string, Resolved> = {}) {
  return evaluate(parseExpression(parts), (leaf) => values[leaf.value]!);
}

const data = (value: number, hasData = true, unit = null as typeof kWh | null): Resolved => ({
  kind: 'data',
  value,
  hasData,
  unit,
});

describe('parseExpression', () => {
  it('applies precedence, unary minus and parentheses', () => {
    expect(run([n('2'), op('+'), n('3'), op('*'), n('4')]).value).toBe(14);
    expect(run([p('('), n('2'), op('+'), n('3'), p(')'), op('*'), n('4')]).value).toBe(20);
    expect(run([op('-'), n('2'), op('*'), n('3')]).value).toBe(-6);
    expect(run([n('10'), op('-'), op('-'), n('2')]).value).toBe(12);
    expect(run([n('8'), op('/'), n('4'), op('/'), n('2')]).value).toBe(1);
    expect(run([n('8'), op('-'), n('4'), op('-'), n('2')]).value).toBe(2);
    expect(run([op('-'), p('('), n('1'), op('+'), n('2'), p(')')]).value).toBe(-3);
  });

  it.each([
    [[] as ExpressionToken[], 0, 'empty'],
    [[n('1'), op('+')], 1, 'no right operand'],
    [[op('*'), n('1')], 0, 'no left operand'],
    [[n('1'), n('2')], 1, 'two operands in a row'],
    [[el('a'), p('('), n('1'), p(')')], 1, 'opening parenthesis follows'],
    [[p('('), n('1'), op('+'), n('2')], 0, 'never closed'],
    [[n('1'), p(')')], 1, 'without a matching'],
    [[p('('), p(')')], 1, 'closing parenthesis without an operand'],
    [[n('1'), op('%'), n('2')], 1, 'not an operator'],
    [[n('x1')], 0, 'not a number'],
    [[n('1'), op('+'), { type: 'widget', value: 'w' }], 2, 'unknown part type'],
  ])('rejects %j at part %i', (parts, index, message) => {
    expect(() => parseExpression(parts)).toThrow(
      expect.objectContaining({ index, message: expect.stringContaining(message) }),
    );
  });
});

describe('evaluate', () => {
  it('counts an operand without data as 0 while another has data', () => {
    expect(run([el('a'), op('+'), el('b')], { a: data(5), b: data(0, false) }).value).toBe(5);
  });

  it('is null with noData when no operand has data', () => {
    const r = run([el('a'), op('+'), el('b')], { a: data(0, false), b: data(0, false) });
    expect(r).toMatchObject({ value: null, issues: [{ type: 'noData' }] });
  });

  it('is null with divisionByZero, never Infinity', () => {
    const r = run([el('a'), op('/'), el('b')], { a: data(5), b: data(0, false) });
    expect(r).toMatchObject({ value: null, issues: [{ type: 'divisionByZero', partIndex: 1 }] });
  });

  it('converts a data operand into the coefficient’s input unit', () => {
    const r = run([el('a'), op('*'), item('f')], {
      a: data(2, true, MWh),
      f: { kind: 'coefficient', value: 0.5, inputUnit: kWh },
    });
    expect(r.value).toBe(1000);
    expect(r.conversions).toEqual([
      { partIndex: 0, from: 'MWh', to: 'kWh', factor: 1000, before: 2, after: 2000 },
    ]);
  });

  it('reports a unit mismatch and a missing coefficient', () => {
    const mismatch = run([el('a'), op('*'), item('f')], {
      a: data(2, true, kg),
      f: { kind: 'coefficient', value: 0.5, inputUnit: kWh },
    });
    expect(mismatch).toMatchObject({ value: null, issues: [{ type: 'unitMismatch' }] });
    const missing = run([el('a'), op('*'), item('f')], {
      a: data(2),
      f: { kind: 'coefficient', value: null, inputUnit: null },
    });
    expect(missing).toMatchObject({ value: null, issues: [{ type: 'missingDatasetItem', partIndex: 2 }] });
  });
});

describe('functions', () => {
  const fn = (value: string): ExpressionToken => ({ type: 'function', value });
  const sep: ExpressionToken = { type: 'separator', value: ',' };

  it('computes max, min, abs and if, taking only the branch chosen', () => {
    expect(run([fn('max'), p('('), n('0'), sep, n('2'), op('-'), n('5'), p(')')]).value).toBe(0);
    expect(run([fn('min'), p('('), n('3'), sep, n('7'), sep, n('-1'), p(')')]).value).toBe(-1);
    expect(run([op('-'), fn('abs'), p('('), n('2'), op('-'), n('5'), p(')'), op('*'), n('2')]).value).toBe(
      -6,
    );
    // if(1 > 2, 1 / 0, 4): the division is never computed.
    const chosen = run([
      fn('if'),
      p('('),
      n('1'),
      op('>'),
      n('2'),
      sep,
      n('1'),
      op('/'),
      n('0'),
      sep,
      n('4'),
      p(')'),
    ]);
    expect(chosen).toMatchObject({ value: 4, issues: [] });
    expect(chosen.functions).toEqual([
      { partIndex: 3, function: '>', inputs: [1, 2], result: 0 },
      { partIndex: 0, function: 'if', inputs: [0, 4], result: 4 },
    ]);
    // 0.1 + 0.2 == 0.3 within float noise.
    const equal = [
      fn('if'),
      p('('),
      n('0.1'),
      op('+'),
      n('0.2'),
      op('=='),
      n('0.3'),
      sep,
      n('1'),
      sep,
      n('0'),
      p(')'),
    ];
    expect(run(equal).value).toBe(1);
  });

  it.each([
    [[fn('max'), n('1')], 0, 'must be followed by an opening parenthesis'],
    [[fn('max'), p('('), n('1'), p(')')], 0, 'max takes 2 to 50 arguments, not 1'],
    [[fn('if'), p('('), n('1'), sep, n('2'), sep, n('3'), p(')')], 3, 'needs a comparison'],
    [[n('1'), op('<'), n('2')], 1, 'only allowed as the condition of if'],
    [[n('1'), sep, n('2')], 1, 'only allowed between the arguments'],
    [[fn('max'), p('('), n('1'), sep, n('2')], 0, 'never closed'],
    [[fn('pow'), p('('), n('1'), sep, n('2'), p(')')], 0, 'is not a function'],
    [[{ type: 'separator', value: ';' }], 0, 'is not a separator'],
  ] as [ExpressionToken[], number, string][])('refuses %j at part %i (%s)', (parts, index, message) => {
    let error: unknown;
    try {
      parseExpression(parts);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExpressionError);
    expect((error as ExpressionError).index).toBe(index);
    expect((error as ExpressionError).message).toContain(message);
  });
});
