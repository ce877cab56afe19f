import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, badRequest, type Issue, notFound } from '../../domain/errors.ts';
import { groupBy } from '../../lib/group-by.ts';
import { isUuid } from '../../lib/ids.ts';
import { coversOrganization } from '../access/index.ts';
import { candidateIssues, templateCandidates } from './indicators.candidates.ts';
import { checkExpression } from './indicators.expression-issues.ts';
import { partsOf, presentIndicator } from './indicators.present.ts';
import { dimensionProblems, loadReferences, usedIndicators } from './indicators.references.ts';
import type { IndicatorRow } from './indicators.repository.ts';
import { type IndicatorFields, indicatorsRepository as repo } from './indicators.repository.ts';
import type { CreateIndicatorBody, Indicator, UpdateIndicatorBody } from './indicators.schemas.ts';
import { isTemplate, templateProblem } from './indicators.sites.ts';
import { widgetUsage } from './indicators.usage.ts';

/**
 * The list items of `rows` (spec 2.9), with every derived field, in a fixed number of queries:
 * the references of all expressions at once, and the widget usage of all indicators at once.
 */
async function presentIndicators(
  tx: Tx,
  caller: Caller,
  all: IndicatorRow[],
  rows: IndicatorRow[],
): Promise<Indicator[]> {
  const refs = await loadReferences(tx, caller.organizationId, rows.map(partsOf));
  const usage = await widgetUsage(
    tx,
    caller.organizationId,
    all.map((r) => r.id),
  );
  const byId = new Map(all.map((r) => [r.id, r]));
  const usedBy = groupBy(
    all.flatMap((r) => [...new Set(usedIndicators(partsOf(r)))].map((id) => ({ id, r }))),
    (u) => u.id,
    (u) => u.r,
  );
  return rows.map((row) => presentIndicator(row, refs, usedBy, usage, byId));
}

const indicatorNotFound = () => notFound('Indicator');

/** Every indicator of the organization: definitions are readable by every member. */
export async function listIndicators(tx: Tx, caller: Caller): Promise<Indicator[]> {
  const all = await repo.list(tx, caller.organizationId);
  return presentIndicators(tx, caller, all, all);
}

export async function getIndicator(tx: Tx, caller: Caller, id: string): Promise<Indicator> {
  const all = await repo.list(tx, caller.organizationId);
  const row = isUuid(id) ? all.find((r) => r.id === id) : undefined;
  if (!row) throw indicatorNotFound();
  return (await presentIndicators(tx, caller, all, [row]))[0]!;
}

/** Checks the fields as a whole (references, units, cycles); a 400 lists every problem. */
async function check(tx: Tx, caller: Caller, fields: IndicatorFields, selfId: string | null): Promise<void> {
  await repo.lockGraph(tx, caller.organizationId);
  const all = await repo.list(tx, caller.organizationId);
  const graph = new Map(all.map((r) => [r.id, usedIndicators(partsOf(r))]));
  if (selfId) graph.set(selfId, usedIndicators(fields.expressionParts));
  const refs = await loadReferences(tx, caller.organizationId, [fields.expressionParts]);
  const issues: Issue[] = checkExpression(fields.expressionParts, refs, selfId, graph);
  if (issues.length === 0)
    for (const problem of dimensionProblems(
      fields.expressionParts,
      refs,
      fields.unitId,
      new Map(all.map((r) => [r.id, r])),
    ))
      issues.push({
        path: `expressionParts.${problem.partIndex}`,
        message: `expressionParts.${problem.partIndex}: ${problem.message}`,
      });
  if (issues.length === 0)
    issues.push(
      ...candidateIssues(
        fields.expressionParts,
        refs,
        await templateCandidates(tx, fields.expressionParts),
        fields.unitId,
        new Map(all.map((r) => [r.id, r])),
      ),
    );
  const field = (path: string, message: string) => issues.push({ path, message: `${path} ${message}` });
  const unit = fields.unitId ? refs.units.get(fields.unitId) : undefined;
  const display = fields.displayUnitId ? refs.units.get(fields.displayUnitId) : undefined;
  if (fields.unitId && !unit) field('unitId', 'is not a unit of this organization or the catalog');
  if (fields.displayUnitId && !display)
    field('displayUnitId', 'is not a unit of this organization or the catalog');
  if (display && !fields.unitId) field('displayUnitId', 'needs a unitId to convert from');
  if (unit && display && unit.dimension !== display.dimension)
    field(
      'displayUnitId',
      `cannot show ${unit.symbol} (${unit.dimension}) as ${display.symbol} (${display.dimension})`,
    );
  // A key with placeholders is looked up per site: its dataset must be one the caller can use.
  const templated = fields.expressionParts
    .map((part, i) => ({
      part,
      i,
      datasetId: (part.metadata as { datasetId?: unknown } | undefined)?.datasetId,
    }))
    .filter(
      ({ part, datasetId }) =>
        isTemplate(part) && typeof datasetId === 'string' && !templateProblem(part.value),
    );
  if (templated.length > 0) {
    const ids = [...new Set(templated.map((t) => t.datasetId as string))].filter(isUuid);
    const datasets = await repo.datasets(tx, ids);
    for (const { i, datasetId } of templated)
      if (!datasets.has(datasetId as string))
        issues.push({
          path: `expressionParts.${i}`,
          message: `expressionParts.${i}: metadata.datasetId ${datasetId} is not a dataset you can use`,
        });
  }
  if (fields.preferredDatasetItemDatasetId) {
    const datasets = await repo.datasets(tx, [fields.preferredDatasetItemDatasetId]);
    if (datasets.size === 0) field('preferredDatasetItemDatasetId', 'is not a dataset you can use');
  }
  if (issues.length > 0) throw badRequest(issues[0]!.message, issues);
}

export const INDICATORS_ORGANIZATION_WIDE =
  'Indicators are calculated over every site of the organization: only owners and managers of all its sites can create, change or delete them';

/**
 * An indicator (its expression, units and dimensions) is reported for every site, so creating,
 * changing and deleting one is for owners and managers whose sites cover the whole organization
 * (decision 166); a manager limited to some sites is refused, whatever the indicator.
 */
async function authorizeOrganizationWide(tx: Tx, caller: Caller): Promise<void> {
  authorize(await coversOrganization(tx, caller), INDICATORS_ORGANIZATION_WIDE);
}

export async function createIndicator(tx: Tx, caller: Caller, body: CreateIndicatorBody): Promise<Indicator> {
  await authorizeOrganizationWide(tx, caller);
  const fields = withDefaults(body);
  await check(tx, caller, fields, null);
  const id = await repo.insert(tx, caller.organizationId, fields);
  return getIndicator(tx, caller, id);
}

export async function updateIndicator(
  tx: Tx,
  caller: Caller,
  id: string,
  body: UpdateIndicatorBody,
): Promise<Indicator> {
  await authorizeOrganizationWide(tx, caller);
  const current = await getIndicator(tx, caller, id);
  const fields = withDefaults({ ...current, ...body });
  await check(tx, caller, fields, current.id);
  await repo.update(tx, caller.organizationId, current.id, fields);
  return getIndicator(tx, caller, current.id);
}

/** Deletes an indicator (and its targets) unless another indicator or a widget uses it. */
export async function removeIndicator(tx: Tx, caller: Caller, id: string): Promise<Indicator> {
  await authorizeOrganizationWide(tx, caller);
  await repo.lockGraph(tx, caller.organizationId);
  const current = await getIndicator(tx, caller, id);
  const users = [
    ...current.indicatorUsage.map((u) => `indicator "${u.indicatorLabel}" (${u.indicatorId})`),
    ...current.widgetUsage.filter((u) => u.isDirect).map((u) => `widget "${u.widgetName ?? u.widgetId}"`),
  ];
  if (users.length > 0)
    throw badRequest(
      `The indicator is used by ${users.join(', ')}`,
      users.map((u) => ({ message: `Used by ${u}` })),
    );
  await repo.remove(tx, caller.organizationId, current.id);
  return current;
}

function withDefaults(body: CreateIndicatorBody): IndicatorFields {
  return {
    name: body.name,
    label: body.label ?? null,
    description: body.description ?? null,
    unitId: body.unitId ?? null,
    displayUnitId: body.displayUnitId ?? null,
    tags: body.tags ?? [],
    expressionParts: body.expressionParts.map((p) => ({
      type: p.type,
      value: p.value,
      ...(p.metadata === undefined ? {} : { metadata: p.metadata }),
    })),
    preferredDatasetItemName: body.preferredDatasetItemName ?? null,
    preferredDatasetItemDatasetId: body.preferredDatasetItemDatasetId ?? null,
  };
}
