import {
  describeDimension,
  divide,
  multiply,
  PURE_NUMBER,
  sameDimension,
  type Term,
  type UnitFactor,
} from '../modules/units/index.ts';
import type { Node } from './parse.ts';

type Leaf = Extract<Node, { kind: 'operand' }>;

/** What an operand contributes to units: its term (null: unknown), and for conversions its units. */
export interface LeafUnits {
  term: Term | null;
  /** A data operand: its unit (converted into a coefficient's input unit when multiplied by it). */
  unit?: UnitFactor | null;
  /** A coefficient: its input unit. */
  inputUnit?: UnitFactor | null;
  /** How the part reads in a message: `kWh`, `kgCO2e per kWh`, `kgCO2e (no input unit)`. */
  words: string;
  kind: 'data' | 'coefficient' | 'nested';
}

export interface DimensionProblem {
  partIndex: number;
  message: string;
}

export interface Dimensions {
  /** Each node's term; null where unknown (an operand without unit, or a mismatch below). */
  terms: Map<Node, Term | null>;
  problems: DimensionProblem[];
  /** The expression in words, for messages. */
  words: Map<Node, string>;
}

/**
 * The unit term of every node of an expression: a number is a pure number, an operand its
 * unit's, `+`/`-` need equal dimensions (a problem otherwise), `*` and `/` combine them. A data
 * operand multiplied directly by a coefficient is converted into the coefficient's input unit
 * (as the evaluation does), so that product is in the coefficient's unit. Unknown stays unknown.
 */
export function dimensionsOf(tree: Node, leaf: (leaf: Leaf) => LeafUnits): Dimensions {
  const terms = new Map<Node, Term | null>();
  const words = new Map<Node, string>();
  const problems: DimensionProblem[] = [];
  const cache = new Map<Leaf, LeafUnits>();
  const get = (l: Leaf) => {
    let u = cache.get(l);
    if (!u) {
      u = leaf(l);
      cache.set(l, u);
    }
    return u;
  };
  const visit = (node: Node): Term | null => {
    let term: Term | null;
    let text: string;
    switch (node.kind) {
      case 'number':
        term = PURE_NUMBER;
        text = String(node.value);
        break;
      case 'operand': {
        const u = get(node);
        term = u.term;
        text = u.words;
        break;
      }
      case 'negate':
        term = visit(node.operand);
        text = `-${words.get(node.operand)}`;
        break;
      case 'binary': {
        const left = visit(node.left);
        const right = visit(node.right);
        const sign = { '+': '+', '-': '-', '*': '×', '/': '÷' }[node.op];
        text = `${words.get(node.left)} ${sign} ${words.get(node.right)}`;
        if (text.length > 120) text = `${text.slice(0, 117)}…`;
        if (node.op === '+' || node.op === '-') {
          if (left && right && !sameDimension(left.dimension, right.dimension)) {
            problems.push({
              partIndex: node.index,
              message: `${words.get(node.left)} (${describeDimension(left.dimension)}) and ${words.get(node.right)} (${describeDimension(right.dimension)}) cannot be ${node.op === '+' ? 'added' : 'subtracted'}: their dimensions differ`,
            });
            term = null;
          } else term = left && right ? left : null;
        } else if (node.op === '/') term = left && right ? divide(left, right) : null;
        else {
          term = left && right ? multiply(left, right) : null;
          const pair = converted(node.left, node.right, get) ?? converted(node.right, node.left, get);
          // The data operand is converted into the input unit first: its scale is taken out.
          if (term && pair) term = { dimension: term.dimension, factor: (term.factor * pair.to) / pair.from };
        }
        break;
      }
      case 'call':
      case 'compare': {
        const args = node.kind === 'call' ? node.args : [node.left, node.right];
        const argTerms = args.map(visit);
        const argWords = args.map((a) => words.get(a)!);
        text =
          node.kind === 'call'
            ? `${node.fn}(${argWords.join(', ')})`
            : `${argWords[0]} ${node.op} ${argWords[1]}`;
        if (text.length > 120) text = `${text.slice(0, 117)}…`;
        // The condition of `if` is a comparison: its arguments are not the value's.
        const valued = node.kind === 'call' && node.fn === 'if' ? [1, 2] : args.map((_, i) => i);
        term = alike(
          node,
          valued.map((i) => ({ node: args[i]!, term: argTerms[i]!, words: argWords[i]! })),
          problems,
        );
        if (node.kind === 'compare') term = PURE_NUMBER;
        break;
      }
    }
    terms.set(node, term);
    words.set(node, text);
    return term;
  };
  visit(tree);
  return { terms, problems, words };
}

/**
 * Values that must share a dimension (the arguments of max and min, both branches of if, both
 * sides of a comparison): the term of the first that is not a number literal (a literal, such as
 * the 0 of `max(0, x)`, is taken in that unit), or a problem naming the function or comparison.
 * Unknown stays unknown; all literals: a pure number.
 */
function alike(
  node: Node,
  values: { node: Node; term: Term | null; words: string }[],
  problems: DimensionProblem[],
): Term | null {
  const dimensioned = values.filter((v) => !isLiteral(v.node));
  if (dimensioned.length === 0) return PURE_NUMBER;
  if (dimensioned.some((v) => v.term === null)) return null;
  const first = dimensioned[0]!;
  const other = dimensioned.find((v) => !sameDimension(v.term!.dimension, first.term!.dimension));
  if (other) {
    const what =
      node.kind === 'compare'
        ? 'cannot be compared'
        : node.kind === 'call' && node.fn === 'if'
          ? 'cannot be the two values of if'
          : `cannot be arguments of the same ${node.kind === 'call' ? node.fn : ''}`;
    problems.push({
      partIndex: node.index,
      message: `${first.words} (${describeDimension(first.term!.dimension)}) and ${other.words} (${describeDimension(other.term!.dimension)}) ${what}: their dimensions differ`,
    });
    return null;
  }
  return first.term;
}

/** A number written in the expression (possibly negated): it takes the dimension of its company. */
export const isLiteral = (node: Node): boolean =>
  node.kind === 'number' || (node.kind === 'negate' && isLiteral(node.operand));

/** A data operand times a coefficient whose input unit it is converted into: both scales. */
function converted(data: Node, coefficient: Node, get: (l: Leaf) => LeafUnits) {
  if (data.kind !== 'operand' || coefficient.kind !== 'operand') return undefined;
  const d = get(data);
  const c = get(coefficient);
  if (d.kind !== 'data' || c.kind !== 'coefficient' || !d.unit || !c.inputUnit) return undefined;
  if (d.unit.id === c.inputUnit.id || d.unit.dimension !== c.inputUnit.dimension) return undefined;
  return { from: d.unit.factor_to_base, to: c.inputUnit.factor_to_base };
}
