import { describe, expect, it } from 'vitest';
import { evaluate, type Resolved } from './evaluate.ts';
import { type ExpressionToken, parseExpression } from './parse.ts';

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
