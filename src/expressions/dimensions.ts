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
    }
    terms.set(node, term);
    words.set(node, text);
    return term;
  };
  visit(tree);
  return { terms, problems, words };
}

/** A data operand times a coefficient whose input unit it is converted into: both scales. */
function converted(data: Node, coefficient: Node, get: (l: Leaf) => LeafUnits) {
  if (data.kind !== 'operand' || coefficient.kind !== 'operand') return undefined;
  const d = get(data);
  const c = get(coefficient);
  if (d.kind !== 'data' || c.kind !== 'coefficient' || !d.unit || !c.inputUnit) return undefined;
  if (d.unit.id === c.inputUnit.id || d.unit.dimension !== c.inputUnit.dimension) return undefined;
  return { from: d.unit.factor_to_base, to: c.inputUnit.factor_to_base };
}
