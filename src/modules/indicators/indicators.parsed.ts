import { type Node, parseExpression } from '../../expressions/parse.ts';
import type { ExpressionPart } from './indicators.schemas.ts';

/**
 * An expression's parse tree (or why it does not parse), once per stored expression: a series
 * evaluates each indicator once per period and per site group.
 */
const parsed = new WeakMap<ExpressionPart[], Node | Error>();
export function parsedExpression(parts: ExpressionPart[]): Node | Error {
  let tree = parsed.get(parts);
  if (!tree) {
    try {
      tree = parseExpression(parts);
    } catch (e) {
      tree = e as Error;
    }
    parsed.set(parts, tree);
  }
  return tree;
}
