import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { badRequest, type Issue, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { groupBy } from '../../lib/group-by.ts';
import { isUuid } from '../../lib/ids.ts';
import {
  checkExpression,
  dimensionProblems,
  findItem,
  listIssues,
  loadReferences,
  NO_ISSUE_FIELDS,
  type References,
  unknownUnitParts,
  usedIndicators,
} from './indicators.references.ts';
import { type IndicatorFields, indicatorsRepository as repo } from './indicators.repository.ts';
import type {
  CreateIndicatorBody,
  ExpressionPart,
  Indicator,
  UpdateIndicatorBody,
  WidgetUsage,
} from './indicators.schemas.ts';
import { isTemplate, templateProblem } from './indicators.sites.ts';
import { widgetUsage } from './indicators.usage.ts';

type Row = Awaited<ReturnType<typeof repo.list>>[number];

const partsOf = (row: Row) => row.expression_parts as ExpressionPart[];
const labelOf = (row: Row) => row.label ?? row.name;

/**
 * The list items of `rows` (spec 2.9), with every derived field, in a fixed number of queries:
 * the references of all expressions at once, and the widget usage of all indicators at once.
 */
async function present(tx: Tx, caller: Caller, all: Row[], rows: Row[]): Promise<Indicator[]> {
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
  return rows.map((row) => presentOne(row, refs, usedBy, usage, byId));
}

function presentOne(
  row: Row,
  refs: References,
  usedBy: Map<string, Row[]>,
  usage: Map<string, WidgetUsage[]>,
  byId: Map<string, Row>,
): Indicator {
  const parts = partsOf(row);
  const items = new Map<string, NonNullable<ReturnType<typeof findItem>>>();
  for (const part of parts) {
    const item = part.type === 'datasetItem' ? findItem(refs, part) : undefined;
    if (item) items.set(item.id, item);
  }
  const unit = row.unit_id ? refs.units.get(row.unit_id) : undefined;
  const display = row.display_unit_id ? refs.units.get(row.display_unit_id) : undefined;
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    label: row.label,
    description: row.description,
    unitId: row.unit_id,
    unitName: unit?.name ?? null,
    displayUnitId: row.display_unit_id,
    displayUnitName: display?.name ?? null,
    tags: row.tags,
    preferredDatasetItemName: row.preferred_dataset_item_name,
    preferredDatasetItemDatasetId: row.preferred_dataset_item_dataset_id,
    expressionParts: parts,
    datasetItems: [...items.values()].map((item) => ({
      id: item.id,
      name: item.name,
      datasetId: item.dataset_id,
      datasetName: item.dataset_name,
      year: item.year,
      data: { key: item.key, value: item.value, unit: item.unit },
      inputUnitId: item.input_unit_id,
      inputUnitSymbol: item.input_unit_id ? (refs.units.get(item.input_unit_id)?.symbol ?? null) : null,
    })),
    widgetUsage: widgetUsageOf(row, usage, usedBy, byId),
    issues: [
      ...listIssues(parts, refs),
      // Saved before units were checked: it still computes, but its unit does not add up.
      ...dimensionProblems(parts, refs, row.unit_id, byId).map((p) => ({
        ...NO_ISSUE_FIELDS,
        type: 'dimensionMismatch',
        message: p.message,
        partIndex: p.partIndex,
      })),
      ...unknownUnitParts(parts, refs, row.unit_id, byId).map((p) => ({
        ...NO_ISSUE_FIELDS,
        type: 'unknownUnit',
        message: p.message,
        partIndex: p.partIndex,
      })),
    ],
    _count: { datasets: new Set([...items.values()].map((i) => i.dataset_id)).size },
    indicatorUsage: (usedBy.get(row.id) ?? []).map((r) => ({
      indicatorId: r.id,
      indicatorLabel: labelOf(r),
    })),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** Widgets showing the indicator itself, then those showing an indicator that uses it. */
function widgetUsageOf(
  row: Row,
  usage: Map<string, WidgetUsage[]>,
  usedBy: Map<string, Row[]>,
  byId: Map<string, Row>,
): WidgetUsage[] {
  const direct = (usage.get(row.id) ?? []).map((u) => ({ ...u, isDirect: true }));
  const indirect: WidgetUsage[] = [];
  const seen = new Set([row.id]);
  const stack = [...(usedBy.get(row.id) ?? [])];
  while (stack.length > 0) {
    const user = stack.pop()!;
    if (seen.has(user.id)) continue;
    seen.add(user.id);
    for (const u of usage.get(user.id) ?? [])
      indirect.push({
        ...u,
        isDirect: false,
        viaIndicatorId: user.id,
        viaIndicatorName: user.name,
        viaIndicatorLabel: byId.get(user.id)?.label ?? null,
      });
    stack.push(...(usedBy.get(user.id) ?? []));
  }
  return [...direct, ...indirect];
}

const indicatorNotFound = () => notFound('Indicator');

/** Every indicator of the organization: definitions are readable by every member. */
export async function listIndicators(tx: Tx, caller: Caller): Promise<Indicator[]> {
  const all = await repo.list(tx, caller.organizationId);
  return present(tx, caller, all, all);
}

export async function getIndicator(tx: Tx, caller: Caller, id: string): Promise<Indicator> {
  const all = await repo.list(tx, caller.organizationId);
  const row = isUuid(id) ? all.find((r) => r.id === id) : undefined;
  if (!row) throw indicatorNotFound();
  return (await present(tx, caller, all, [row]))[0]!;
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

export async function createIndicator(tx: Tx, caller: Caller, body: CreateIndicatorBody): Promise<Indicator> {
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
  const current = await getIndicator(tx, caller, id);
  const fields = withDefaults({ ...current, ...body });
  await check(tx, caller, fields, current.id);
  await repo.update(tx, caller.organizationId, current.id, fields);
  return getIndicator(tx, caller, current.id);
}

/** Deletes an indicator (and its targets) unless another indicator or a widget uses it. */
export async function removeIndicator(tx: Tx, caller: Caller, id: string): Promise<Indicator> {
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
