import { roundStored } from '../lib/numbers.ts';
import { convertValue, sameDimension, type Term, type UnitFactor } from '../modules/units/index.ts';
import { isLiteral } from './dimensions.ts';
import { type Node, operandsOf } from './parse.ts';

type Leaf = Extract<Node, { kind: 'operand' }>;

/** What an operand stands for once its data is aggregated over the scope. */
export type Resolved =
  /** A formElement or activity operand: its aggregate (0 without data) in `unit`. */
  | { kind: 'data'; value: number; hasData: boolean; unit: UnitFactor | null }
  /** A coefficient: null when no item matches; `inputUnit` is what it applies per. */
  | { kind: 'coefficient'; value: number | null; inputUnit: UnitFactor | null }
  /** A nested indicator evaluated in the same scope; `failure` when it has no value. */
  | { kind: 'nested'; value: number | null; hasData: boolean; failure?: ResultIssue };

/** Why a result is null (or what is odd about it): `noData`, `divisionByZero`, … */
export interface ResultIssue {
  type: string;
  message: string;
  partIndex?: number;
  [field: string]: unknown;
}

export interface Conversion {
  partIndex: number;
  from: string;
  to: string;
  factor: number;
  before: number;
  after: number;
}

/** A function applied (or a comparison made): what it was given and what it gave. */
export interface FunctionStep {
  partIndex: number;
  /** `max`, `min`, `abs`, `if`, or the comparison operator (`<`, `==`, …). */
  function: string;
  /** The arguments' values, in the unit of the result (for `if`: the condition, then the branch taken). */
  inputs: number[];
  /** For `if` and comparisons: true or false (1 or 0 for a comparison). */
  result: number;
}

export interface Evaluation {
  value: number | null;
  issues: ResultIssue[];
  conversions: Conversion[];
  /** Each function applied, in the order evaluated. */
  functions?: FunctionStep[];
}

class Stop extends Error {
  constructor(readonly issue: ResultIssue) {
    super(issue.message);
  }
}

/**
 * Applies the formula to operands already aggregated over the whole scope (a ratio of sums,
 * never a sum of ratios). An operand without data counts as 0 while another has data; with
 * no data at all, or a division by zero, the value is null with an issue; never NaN.
 * A data operand multiplied by a coefficient is first converted into the coefficient's input unit.
 */
export function evaluate(
  tree: Node,
  resolve: (leaf: Leaf) => Resolved,
  terms?: Map<Node, Term | null>,
): Evaluation {
  const conversions: Conversion[] = [];
  const functions: FunctionStep[] = [];
  const cache = new Map<Leaf, Resolved>();
  const get = (leaf: Leaf) => {
    let r = cache.get(leaf);
    if (!r) {
      r = resolve(leaf);
      cache.set(leaf, r);
    }
    return r;
  };

  const dataLeaves = operandsOf(tree)
    .map((leaf) => ({ leaf, r: get(leaf) }))
    .filter(({ r }) => r.kind !== 'coefficient');
  if (dataLeaves.length > 0 && !dataLeaves.some(({ r }) => r.kind !== 'coefficient' && r.hasData)) {
    return {
      value: null,
      issues: [{ type: 'noData', message: 'No data in scope for any operand' }],
      conversions,
    };
  }

  function leafValue(leaf: Leaf): number {
    const r = get(leaf);
    if (r.kind === 'coefficient') {
      if (r.value === null)
        throw new Stop({
          type: 'missingDatasetItem',
          message: `No coefficient found for part ${leaf.index}`,
          partIndex: leaf.index,
        });
      return r.value;
    }
    if (r.kind === 'nested') {
      if (r.value === null) {
        if (!r.hasData) return 0;
        throw new Stop({ ...(r.failure ?? { type: 'noData', message: 'no value' }), partIndex: leaf.index });
      }
      return r.value;
    }
    return r.value;
  }

  /** A data operand times a coefficient: the operand in the coefficient's input unit. */
  function converted(data: Leaf, coefficient: Leaf): number {
    const d = get(data);
    const c = get(coefficient);
    const value = leafValue(data);
    if (
      d.kind !== 'data' ||
      c.kind !== 'coefficient' ||
      !d.unit ||
      !c.inputUnit ||
      d.unit.id === c.inputUnit.id
    )
      return value;
    if (d.unit.dimension !== c.inputUnit.dimension)
      throw new Stop({
        type: 'unitMismatch',
        message: `${d.unit.symbol} cannot be converted into ${c.inputUnit.symbol}`,
        partIndex: data.index,
        operandUnitSymbol: d.unit.symbol,
        inputUnitSymbol: c.inputUnit.symbol,
      });
    const after = convertValue(value, d.unit, c.inputUnit);
    conversions.push({
      partIndex: data.index,
      from: d.unit.symbol,
      to: c.inputUnit.symbol,
      factor: d.unit.factor_to_base / c.inputUnit.factor_to_base,
      before: value,
      after,
    });
    return after;
  }

  /** An argument of a function or comparison in the unit of `into` (a literal as it is). */
  function valueIn(node: Node, into: Node): number {
    const v = value(node);
    const from = terms?.get(node);
    const to = terms?.get(into);
    if (isLiteral(node) || !from || !to || from.factor === to.factor) return v;
    if (!sameDimension(from.dimension, to.dimension)) return v;
    const after = roundStored((v * from.factor) / to.factor);
    conversions.push({
      partIndex: node.index,
      from: 'argument',
      to: 'result of the function',
      factor: from.factor / to.factor,
      before: v,
      after,
    });
    return after;
  }

  function value(node: Node): number {
    switch (node.kind) {
      case 'compare': {
        // Both sides in the unit of the first that is not a literal.
        const unitOf = isLiteral(node.left) ? node.right : node.left;
        const left = valueIn(node.left, unitOf);
        const right = valueIn(node.right, unitOf);
        const close = Math.abs(left - right) <= 1e-12 * Math.max(Math.abs(left), Math.abs(right));
        const holds = {
          '<': left < right && !close,
          '<=': left < right || close,
          '>': left > right && !close,
          '>=': left > right || close,
          '==': close,
          '!=': !close,
        }[node.op];
        functions.push({
          partIndex: node.index,
          function: node.op,
          inputs: [left, right],
          result: holds ? 1 : 0,
        });
        return holds ? 1 : 0;
      }
      case 'call': {
        if (node.fn === 'if') {
          const condition = value(node.args[0]!);
          const taken = valueIn(node.args[condition ? 1 : 2]!, node);
          functions.push({
            partIndex: node.index,
            function: 'if',
            inputs: [condition, taken],
            result: taken,
          });
          return taken;
        }
        const inputs = node.args.map((arg) => valueIn(arg, node));
        const result =
          node.fn === 'abs'
            ? Math.abs(inputs[0]!)
            : node.fn === 'max'
              ? Math.max(...inputs)
              : Math.min(...inputs);
        functions.push({
          partIndex: node.index,
          function: node.fn,
          inputs,
          result: result === 0 ? 0 : result,
        });
        return result;
      }
      case 'number':
        return node.value;
      case 'operand':
        return leafValue(node);
      case 'negate':
        return -value(node.operand);
      case 'binary': {
        if (node.op === '*') {
          const pair = dataTimesCoefficient(node.left, node.right, get);
          if (pair) return converted(pair.data, pair.coefficient) * leafValue(pair.coefficient);
        }
        const left = value(node.left);
        let right = value(node.right);
        if (node.op === '+' || node.op === '-') {
          // Same dimension, other scale (kWh + MWh): the right side in the left side's unit.
          const l = terms?.get(node.left);
          const r = terms?.get(node.right);
          if (l && r && l.factor !== r.factor && sameDimension(l.dimension, r.dimension)) {
            const before = right;
            right = roundStored((right * r.factor) / l.factor);
            conversions.push({
              partIndex: node.right.index,
              from: 'right operand',
              to: 'left operand',
              factor: r.factor / l.factor,
              before,
              after: right,
            });
          }
        }
        if (node.op === '+') return left + right;
        if (node.op === '-') return left - right;
        if (node.op === '*') return left * right;
        if (right === 0)
          throw new Stop({
            type: 'divisionByZero',
            message: 'The divisor is 0 in scope',
            partIndex: node.index,
          });
        return left / right;
      }
    }
  }

  try {
    const result = value(tree);
    if (!Number.isFinite(result))
      return {
        value: null,
        issues: [{ type: 'overflow', message: 'The result is not a finite number' }],
        conversions,
        functions,
      };
    return { value: result === 0 ? 0 : result, issues: [], conversions, functions };
  } catch (e) {
    if (e instanceof Stop) return { value: null, issues: [e.issue], conversions, functions };
    throw e;
  }
}

function dataTimesCoefficient(a: Node, b: Node, get: (leaf: Leaf) => Resolved) {
  if (a.kind !== 'operand' || b.kind !== 'operand') return undefined;
  const ra = get(a);
  const rb = get(b);
  if (ra.kind === 'data' && rb.kind === 'coefficient') return { data: a, coefficient: b };
  if (rb.kind === 'data' && ra.kind === 'coefficient') return { data: b, coefficient: a };
  return undefined;
}
