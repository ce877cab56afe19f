import type { Issue } from '../../domain/errors.ts';
import { childrenOf, ExpressionError, type Node, parseExpression } from '../../expressions/parse.ts';
import { findElement, findItem, itemRef, type References } from './indicators.references.ts';
import type { ExpressionPart, ListIssue } from './indicators.schemas.ts';
import { isTemplate, templateProblem } from './indicators.sites.ts';

// What is wrong with an expression, on references loaded by `loadReferences` (pure): the issues
// a saved indicator lists (what went wrong with what it names since it was saved), and the
// save-time check.

/** An issue's fields, all empty; each issue sets the ones it names. */
export const NO_ISSUE_FIELDS = {
  formElementId: null,
  formName: null,
  fieldName: null,
  indicatorId: null,
  indicatorName: null,
  status: null,
  datasetId: null,
  datasetName: null,
  datasetItemName: null,
  indicatorUnitSymbol: null,
  operandUnitSymbol: null,
  inputUnitSymbol: null,
};

const NO_FIELDS = { partIndex: null, ...NO_ISSUE_FIELDS };

/**
 * (data operand, coefficient) part indexes multiplied directly in the parsed expression (`a * f`
 * or `f * a`): where the operand is converted into the coefficient's input unit.
 */
export function multipliedPairs(parts: ExpressionPart[]): [number, number][] {
  let tree: Node;
  try {
    tree = parseExpression(parts);
  } catch {
    return [];
  }
  const pairs: [number, number][] = [];
  const isData = (n: Node) => n.kind === 'operand' && (n.type === 'formElement' || n.type === 'activity');
  const isItem = (n: Node) => n.kind === 'operand' && n.type === 'datasetItem';
  const walk = (n: Node): void => {
    if (n.kind === 'binary' && n.op === '*') {
      if (isData(n.left) && isItem(n.right)) pairs.push([n.left.index, n.right.index]);
      else if (isItem(n.left) && isData(n.right)) pairs.push([n.right.index, n.left.index]);
    }
    childrenOf(n).forEach(walk);
  };
  walk(tree);
  return pairs;
}

/**
 * What is wrong with a saved expression now: referenced elements deleted since, coefficients
 * gone, units that no longer convert. Pure: works on loaded references.
 */
export function listIssues(
  parts: ExpressionPart[],
  refs: References,
  indicatorUnitSymbol: string | null = null,
): ListIssue[] {
  const issues: ListIssue[] = [];
  parts.forEach((part, i) => {
    if (part.type === 'formElement' || part.type === 'activity') {
      const element = findElement(refs, part);
      if (!element || element.deleted)
        issues.push({
          ...NO_FIELDS,
          type: 'deletedFormElement',
          message: element
            ? `The element "${element.label}" of form "${element.form_name}" was deleted`
            : `The element ${part.value} no longer exists`,
          partIndex: i,
          formElementId: element?.id ?? (part.type === 'formElement' ? part.value : null),
          formName: element?.form_name ?? null,
          fieldName: element?.label ?? null,
        });
    } else if (part.type === 'datasetItem' && !isTemplate(part) && !findItem(refs, part)) {
      const ref = itemRef(part);
      issues.push({
        ...NO_FIELDS,
        type: 'missingDatasetItem',
        message: `The coefficient ${part.value} no longer exists`,
        partIndex: i,
        datasetId: 'datasetId' in ref ? ref.datasetId : null,
        datasetItemName: part.value,
      });
    }
  });
  for (const [d, c] of multipliedPairs(parts)) {
    const element = findElement(refs, parts[d]!);
    const item = findItem(refs, parts[c]!);
    const from = element?.unit_id ? refs.units.get(element.unit_id) : undefined;
    const to = item?.input_unit_id ? refs.units.get(item.input_unit_id) : undefined;
    if (from && to && from.dimension !== to.dimension)
      issues.push({
        ...NO_FIELDS,
        type: 'unitMismatch',
        message: `${from.symbol} cannot be converted into ${to.symbol} (the input unit of ${item!.name})`,
        partIndex: d,
        formElementId: element!.id,
        formName: element!.form_name,
        fieldName: element!.label,
        datasetId: item!.dataset_id,
        datasetName: item!.dataset_name,
        datasetItemName: item!.name,
        indicatorUnitSymbol,
        operandUnitSymbol: from.symbol,
        inputUnitSymbol: to.symbol,
      });
  }
  return issues;
}

/**
 * The save-time check of an expression: well-formed, every reference known to the organization,
 * units convertible, no cycle through `selfId`. Each problem is an issue naming its part.
 */
export function checkExpression(
  parts: ExpressionPart[],
  refs: References,
  selfId: string | null,
  graph: Map<string, string[]>,
): Issue[] {
  const issues: Issue[] = [];
  const issue = (i: number, message: string) =>
    issues.push({ path: `expressionParts.${i}`, message: `expressionParts.${i}: ${message}` });
  try {
    parseExpression(parts);
  } catch (e) {
    if (!(e instanceof ExpressionError)) throw e;
    issue(e.index, e.message);
    return issues;
  }
  parts.forEach((part, i) => {
    if (part.type === 'formElement') {
      const element = refs.elements.get(part.value);
      if (!element || element.deleted) issue(i, `${part.value} is not a form element of this organization`);
      else if (element.type !== 'NUMBER')
        issue(i, `"${element.label}" is a ${element.type} element, not NUMBER`);
    } else if (part.type === 'activity') {
      const element = refs.activities.get(part.value);
      if (!element || element.deleted)
        issue(i, `"${part.value}" is not an ACTIVITY element (formId:key) of this organization`);
    } else if (part.type === 'datasetItem' && isTemplate(part)) {
      const problem = templateProblem(part.value);
      if (problem) issue(i, problem);
      else if (!('datasetId' in itemRef(part)))
        issue(i, 'a key with placeholders needs metadata.datasetId (the dataset to look the key up in)');
    } else if (part.type === 'datasetItem') {
      if (!findItem(refs, part)) issue(i, `"${part.value}" is not a coefficient you can use`);
    } else if (part.type === 'indicator') {
      if (part.value === selfId) issue(i, 'an indicator cannot use itself');
      else if (!graph.has(part.value)) issue(i, `${part.value} is not an indicator of this organization`);
      else if (selfId && reaches(graph, part.value, selfId))
        issue(i, `using this indicator makes a cycle (it uses, directly or not, the indicator being saved)`);
    }
  });
  for (const issueOfUnits of listIssues(parts, refs).filter((x) => x.type === 'unitMismatch'))
    issue(issueOfUnits.partIndex!, issueOfUnits.message);
  return issues;
}

/** True when `to` can be reached from `from` along the used-indicator edges. */
function reaches(graph: Map<string, string[]>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === to) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(graph.get(id) ?? []));
  }
  return false;
}
