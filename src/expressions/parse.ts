/**
 * Indicator expressions: a token list (`expressionParts`) parsed into a tree with the usual
 * precedence (* and / before + and -), unary minus and parentheses. Every error names the
 * index of the part that is wrong, so a client can point at it.
 */

export const OPERAND_TYPES = ['formElement', 'activity', 'datasetItem', 'indicator'] as const;
export type OperandType = (typeof OPERAND_TYPES)[number];
export const PART_TYPES = [
  'number',
  'operator',
  'parenthesis',
  'function',
  'separator',
  ...OPERAND_TYPES,
] as const;
/** Functions and how many arguments each takes (at least, at most). */
export const FUNCTIONS = { max: [2, 50], min: [2, 50], abs: [1, 1], if: [3, 3] } as const;
export type FunctionName = keyof typeof FUNCTIONS;
export const COMPARISONS = ['<', '<=', '>', '>=', '==', '!='] as const;
export type Comparison = (typeof COMPARISONS)[number];
const ARITHMETIC = ['+', '-', '*', '/'];
export type PartType = (typeof PART_TYPES)[number];

export interface ExpressionToken {
  type: string;
  value: string;
  metadata?: unknown;
}

export type Node =
  | { kind: 'number'; value: number; index: number }
  | { kind: 'operand'; type: OperandType; value: string; index: number }
  | { kind: 'negate'; operand: Node; index: number }
  | { kind: 'binary'; op: '+' | '-' | '*' | '/'; left: Node; right: Node; index: number }
  /** `max(a, b, …)`, `min(…)`, `abs(a)`, `if(condition, a, b)`: `index` is the function part's. */
  | { kind: 'call'; fn: FunctionName; args: Node[]; index: number }
  /** A comparison: only the condition of `if`. */
  | { kind: 'compare'; op: Comparison; left: Node; right: Node; index: number };

export class ExpressionError extends Error {
  constructor(
    /** The offending part's index (the list's length for a missing part at the end). */
    readonly index: number,
    message: string,
  ) {
    super(message);
    this.name = 'ExpressionError';
  }
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Parses the parts into a tree, or throws an ExpressionError naming the offending part. */
export function parseExpression(parts: readonly ExpressionToken[]): Node {
  if (parts.length === 0) throw new ExpressionError(0, 'the expression is empty');
  parts.forEach(checkPart);
  let pos = 0;
  const peek = () => parts[pos];
  const isOp = (p: ExpressionToken | undefined, ...ops: string[]) =>
    p?.type === 'operator' && ops.includes(p.value);
  const isParen = (p: ExpressionToken | undefined, v: '(' | ')') =>
    p?.type === 'parenthesis' && p.value === v;

  function expression(): Node {
    let left = term();
    while (isOp(peek(), '+', '-')) {
      const index = pos;
      const op = parts[pos++]!.value as '+' | '-';
      left = { kind: 'binary', op, left, right: term(), index };
    }
    return left;
  }

  function term(): Node {
    let left = unary();
    while (isOp(peek(), '*', '/')) {
      const index = pos;
      const op = parts[pos++]!.value as '*' | '/';
      left = { kind: 'binary', op, left, right: unary(), index };
    }
    return left;
  }

  function unary(): Node {
    if (isOp(peek(), '-')) {
      const index = pos++;
      return { kind: 'negate', operand: unary(), index };
    }
    if (isOp(peek(), '+')) {
      pos++;
      return unary();
    }
    return primary();
  }

  function primary(): Node {
    const index = pos;
    const part = parts[pos];
    if (!part) {
      const before = parts[pos - 1]!;
      throw new ExpressionError(
        pos - 1,
        before.type === 'operator'
          ? `operator "${before.value}" has no right operand`
          : `"${before.value}" is not followed by an operand`,
      );
    }
    pos++;
    if (part.type === 'number') return { kind: 'number', value: Number(part.value), index };
    if (part.type === 'function') return call(part.value as FunctionName, index);
    if (part.type === 'separator')
      throw new ExpressionError(index, 'a separator (,) without an argument before it');
    if (part.type === 'parenthesis') {
      if (part.value === ')')
        throw new ExpressionError(index, 'closing parenthesis without an operand before it');
      const inner = expression();
      if (!isParen(peek(), ')')) {
        if (pos >= parts.length) throw new ExpressionError(index, 'opening parenthesis is never closed');
        throw unexpected(pos);
      }
      pos++;
      return inner;
    }
    if (part.type === 'operator')
      throw new ExpressionError(index, `operator "${part.value}" has no left operand`);
    return { kind: 'operand', type: part.type as OperandType, value: part.value, index };
  }

  /** A function part, then `(`, its arguments separated by `,`, then `)`. */
  function call(fn: FunctionName, index: number): Node {
    if (!isParen(peek(), '('))
      throw new ExpressionError(index, `the function ${fn} must be followed by an opening parenthesis`);
    pos++;
    const args: Node[] = [];
    for (;;) {
      args.push(fn === 'if' && args.length === 0 ? condition() : expression());
      const next = peek();
      if (next?.type === 'separator') {
        pos++;
        continue;
      }
      if (isParen(next, ')')) {
        pos++;
        break;
      }
      if (!next) throw new ExpressionError(index, `the parenthesis of ${fn} is never closed`);
      if (next.type === 'operator' && (COMPARISONS as readonly string[]).includes(next.value))
        throw new ExpressionError(
          pos,
          'a comparison is only allowed as the condition of if (its first argument)',
        );
      throw unexpected(pos);
    }
    const [least, most] = FUNCTIONS[fn];
    if (args.length < least || args.length > most)
      throw new ExpressionError(
        index,
        least === most
          ? `${fn} takes ${least} argument${least === 1 ? '' : 's'}${fn === 'if' ? ' (condition, value if true, value if false)' : ''}, not ${args.length}`
          : `${fn} takes ${least} to ${most} arguments, not ${args.length}`,
      );
    return { kind: 'call', fn, args, index };
  }

  /** The condition of `if`: two expressions compared. */
  function condition(): Node {
    const left = expression();
    const part = peek();
    if (part?.type !== 'operator' || !(COMPARISONS as readonly string[]).includes(part.value))
      throw new ExpressionError(
        part ? pos : pos - 1,
        'the condition of if needs a comparison (<, <=, >, >=, ==, !=) between two values',
      );
    const index = pos++;
    return { kind: 'compare', op: part.value as Comparison, left, right: expression(), index };
  }

  function unexpected(at: number): ExpressionError {
    const part = parts[at]!;
    if (part.type === 'separator')
      return new ExpressionError(at, 'a separator (,) is only allowed between the arguments of a function');
    if (part.type === 'operator' && (COMPARISONS as readonly string[]).includes(part.value))
      return new ExpressionError(
        at,
        'a comparison is only allowed as the condition of if (its first argument)',
      );
    if (isParen(part, ')'))
      return new ExpressionError(at, 'closing parenthesis without a matching opening one');
    if (isParen(part, '('))
      return new ExpressionError(at, 'an opening parenthesis follows an operand without an operator');
    return new ExpressionError(at, 'two operands in a row: an operator is missing before this part');
  }

  const tree = expression();
  if (pos < parts.length) throw unexpected(pos);
  return tree;
}

function checkPart(part: ExpressionToken, index: number) {
  const value = typeof part.value === 'string' ? part.value : '';
  switch (part.type) {
    case 'number':
      if (!NUMBER.test(value.trim()) || !Number.isFinite(Number(value)))
        throw new ExpressionError(index, `"${value}" is not a number`);
      return;
    case 'operator':
      if (!ARITHMETIC.includes(value) && !(COMPARISONS as readonly string[]).includes(value))
        throw new ExpressionError(
          index,
          `"${value}" is not an operator (+, -, *, / or a comparison <, <=, >, >=, ==, !=)`,
        );
      return;
    case 'function':
      if (!Object.hasOwn(FUNCTIONS, value))
        throw new ExpressionError(
          index,
          `"${value}" is not a function (${Object.keys(FUNCTIONS).join(', ')})`,
        );
      return;
    case 'separator':
      if (value !== ',') throw new ExpressionError(index, `"${value}" is not a separator (,)`);
      return;
    case 'parenthesis':
      if (value !== '(' && value !== ')') throw new ExpressionError(index, `"${value}" is not a parenthesis`);
      return;
    case 'formElement':
    case 'activity':
    case 'datasetItem':
    case 'indicator':
      if (value.length === 0) throw new ExpressionError(index, `a ${part.type} needs a value`);
      return;
    default:
      throw new ExpressionError(
        index,
        `unknown part type "${String(part.type)}" (one of ${PART_TYPES.join(', ')})`,
      );
  }
}

/** Every operand leaf of a tree, in order. */
export function operandsOf(node: Node): Extract<Node, { kind: 'operand' }>[] {
  switch (node.kind) {
    case 'number':
      return [];
    case 'operand':
      return [node];
    case 'negate':
      return operandsOf(node.operand);
    case 'binary':
    case 'compare':
      return [...operandsOf(node.left), ...operandsOf(node.right)];
    case 'call':
      return node.args.flatMap(operandsOf);
  }
}

/** The children of a node, in order. */
export function childrenOf(node: Node): Node[] {
  switch (node.kind) {
    case 'number':
    case 'operand':
      return [];
    case 'negate':
      return [node.operand];
    case 'binary':
    case 'compare':
      return [node.left, node.right];
    case 'call':
      return node.args;
  }
}
