import type { Tx } from '../../db/client.ts';
import type { Issue } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { describeDimension } from '../units/index.ts';
import { multipliedPairs } from './indicators.expression-issues.ts';
import {
  dimensionProblems,
  findElement,
  itemRef,
  leafUnits,
  type References,
  unitOfSymbol,
} from './indicators.references.ts';
import { type ReferencedItem, indicatorsRepository as repo } from './indicators.repository.ts';
import type { ExpressionPart } from './indicators.schemas.ts';
import { isTemplate, templateProblem } from './indicators.sites.ts';

/**
 * Save-time checks of keys with placeholders (`grid_{site.metadata.country}`): every coefficient
 * such a key can resolve to, in any year, is checked like a fixed key would be. Their units must
 * agree with one another (the same dimension per the same input dimension), an operand multiplied
 * by them must convert into their input units, and the expression with them must have the
 * indicator's dimension. Coefficients whose unit is not in the catalog are left to compute time
 * (`unknownUnit`), like a fixed key's.
 */

/** The most candidates looked at per key with placeholders. */
const MOST = 5000;
/** The most keys named in a message. */
const NAMED = 12;

/** A LIKE pattern for a key with placeholders: each placeholder stands for one character or more. */
export function keyPattern(template: string): string {
  return template
    .split(/\{[^{}]*\}/)
    .map((literal) => literal.replace(/[\\%_]/g, (c) => `\\${c}`))
    .join('_%');
}

/** The coefficients each key with placeholders can resolve to, by part index. */
export async function templateCandidates(
  tx: Tx,
  parts: ExpressionPart[],
): Promise<Map<number, ReferencedItem[]>> {
  const out = new Map<number, ReferencedItem[]>();
  for (const [index, part] of parts.entries()) {
    if (!isTemplate(part) || templateProblem(part.value)) continue;
    const ref = itemRef(part);
    if (!('datasetId' in ref) || !isUuid(ref.datasetId)) continue;
    out.set(index, await repo.candidates(tx, ref.datasetId, keyPattern(part.value), MOST));
  }
  return out;
}

const listed = (items: ReferencedItem[]) => {
  const keys = [...new Set(items.map((i) => i.key))];
  return `${keys.slice(0, NAMED).join(', ')}${keys.length > NAMED ? ` and ${keys.length - NAMED} more` : ''}`;
};

/** What is wrong with the coefficients keys with placeholders can resolve to, as 400 issues. */
export function candidateIssues(
  parts: ExpressionPart[],
  refs: References,
  candidates: Map<number, ReferencedItem[]>,
  unitId: string | null,
  indicators: Map<string, { name: string; unit_id: string | null }>,
): Issue[] {
  const issues: Issue[] = [];
  const issue = (i: number, message: string) =>
    issues.push({ path: `expressionParts.${i}`, message: `expressionParts.${i}: ${message}` });
  const representative = new Map<number, ReferencedItem>();
  for (const [index, items] of candidates) {
    const part = parts[index]!;
    // The candidates by their units' dimensions: one class, or they disagree.
    const classes = new Map<string, { words: string; items: ReferencedItem[] }>();
    for (const item of items) {
      if (!unitOfSymbol(refs, item.unit)) continue;
      const units = leafUnits(refs, part, item, undefined);
      const input = item.input_unit_id ? refs.units.get(item.input_unit_id) : undefined;
      const signature = `${describeDimension(units.term!.dimension)}|${input?.dimension ?? ''}`;
      const found = classes.get(signature);
      if (found) found.items.push(item);
      else classes.set(signature, { words: units.words, items: [item] });
    }
    if (classes.size === 0) continue;
    if (classes.size > 1) {
      issue(
        index,
        `the coefficients "${part.value}" can resolve to are not in the same units, so a site's value would depend on which one it finds: ${[
          ...classes.values(),
        ]
          .map((c) => `${listed(c.items)} (${c.words})`)
          .join('; ')}`,
      );
      continue;
    }
    const known = [...classes.values()][0]!.items;
    representative.set(index, known[0]!);
    for (const [d, c] of multipliedPairs(parts)) {
      if (c !== index) continue;
      const element = findElement(refs, parts[d]!);
      const from = element?.unit_id ? refs.units.get(element.unit_id) : undefined;
      const inputs = [
        ...new Set(known.map((i) => (i.input_unit_id ? refs.units.get(i.input_unit_id) : undefined))),
      ].filter((u) => u !== undefined);
      if (from && inputs.length > 0 && inputs[0]!.dimension !== from.dimension)
        issue(
          d,
          `${from.symbol} cannot be converted into ${inputs.map((u) => u.symbol).join(' or ')}, the input unit of every coefficient "${part.value}" can resolve to (${listed(known)})`,
        );
    }
  }
  if (issues.length > 0 || representative.size === 0) return issues;
  for (const problem of dimensionProblems(parts, refs, unitId, indicators, (i) => representative.get(i)))
    issue(
      problem.partIndex,
      `${problem.message} (with the coefficients ${[...representative.keys()].map((i) => `"${parts[i]!.value}" can resolve to: ${listed(candidates.get(i)!)}`).join('; ')})`,
    );
  return issues;
}
