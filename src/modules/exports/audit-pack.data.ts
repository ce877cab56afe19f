import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { isUuid } from '../../lib/ids.ts';
import { siteScope } from '../access/index.ts';
import { currentValues, type ExpressionPart, listIndicators } from '../indicators/index.ts';
import { packDatasetItems, packFormElements, packUnits } from './audit-pack.repository.ts';
import { historyRowsWithUnits } from './audit-pack.tables.ts';
import type { Column, ExportRow } from './exports.columns.ts';
import { yearLockRows } from './exports.repository.ts';

/** What the manifest says about the pack besides its files. */
export interface PackHeader {
  software: { name: string; version: string };
  organization: { id: string; name: string };
  generatedBy: { userId: string; name: string; email: string; credential: 'token' | 'apikey' };
  createdAt: Date;
  year: number;
  filters: { formId: string | null; siteIds: string[] | null };
  siteScope: { allSites: boolean; sites: { id: string; code: string | null; name: string; path: string }[] };
}

const col = (name: string, type: Column['type'], description: string): Column => ({
  name,
  type,
  description,
});

export const DATASET_COLUMNS: Column[] = [
  col('datasetId', 'string', 'The dataset'),
  col('datasetName', 'string', 'Its name'),
  col('dataSource', 'string', 'Where its coefficients come from (publisher, report), as recorded'),
  col('version', 'string', 'The edition of that source, as recorded'),
  col('datasetDescription', 'string', 'The dataset’s description'),
  col('common', 'boolean', 'A common dataset (shared by every organization)'),
  col('itemId', 'string', 'The coefficient (dataset item)'),
  col('key', 'string', 'Its key, as calculations look it up'),
  col('label', 'string', 'Its label'),
  col('value', 'number', 'Its value'),
  col('unit', 'string', 'The unit it yields'),
  col('inputUnit', 'string', 'The unit it applies per'),
  col('year', 'integer', 'Its year'),
  col('description', 'string', 'The coefficient’s description'),
  col('link', 'string', 'A link to its source'),
  col('updatedAt', 'datetime', 'When it last changed'),
];

export const INDICATOR_COLUMNS: Column[] = [
  col('indicatorId', 'string', 'The indicator'),
  col('name', 'string', 'Its name'),
  col('expression', 'string', 'Its formula, with forms, elements, coefficients and units named'),
  col('year', 'integer', 'The year computed'),
  col('value', 'number', 'Its value over the sites exported, in its unit (empty when it cannot be computed)'),
  col('unit', 'string', 'The unit of `value`'),
  col('displayValue', 'number', 'The value in the display unit'),
  col('displayUnit', 'string', 'The display unit'),
  col('issues', 'json', 'Why a value is missing or partial (noData, missingDatasetItem, …)'),
  col('expressionParts', 'json', 'The formula as stored (ids refer to forms.csv and datasets.csv)'),
];

export const LOCK_COLUMNS: Column[] = [
  col('lockId', 'string', 'The lock'),
  col('formId', 'string', 'The form'),
  col('formName', 'string', 'Its name'),
  col('year', 'integer', 'The year'),
  col('periodUnit', 'integer', 'The period locked; empty: the whole year'),
  col('siteId', 'string', 'The site locked; empty: every site'),
  col('siteName', 'string', 'Its name'),
  col('lockedByName', 'string', 'Who locked'),
  col('lockedAt', 'datetime', 'When'),
  col('unlockedByName', 'string', 'Who unlocked, when it was unlocked'),
  col('unlockedAt', 'datetime', 'When'),
];

export const FORM_COLUMNS: Column[] = [
  col('formId', 'string', 'The form'),
  col('formName', 'string', 'Its name'),
  col('periodType', 'string', 'YEARLY, QUARTERLY or MONTHLY'),
  col('dueDays', 'integer', 'Days after a period’s end when its data is due; empty: none'),
  col('elementId', 'string', 'The element (question)'),
  col('elementKey', 'string', 'Its key'),
  col('elementLabel', 'string', 'Its label'),
  col('position', 'integer', 'Its place in the form'),
  col('type', 'string', 'NUMBER, TEXT, BOOLEAN, SELECT, DATE, TIMESTAMP, FILE or ACTIVITY'),
  col('required', 'boolean', 'An answer is required'),
  col('unit', 'string', 'The unit values are stored in (NUMBER)'),
  col('aggregation', 'string', 'How its periods combine in indicators: SUM, LAST or AVERAGE'),
  col('minValue', 'number', 'The smallest value accepted, in `unit`'),
  col('maxValue', 'number', 'The largest value accepted, in `unit`'),
  col('integerOnly', 'boolean', 'Only whole numbers are accepted'),
  col('warnChangeFactor', 'number', 'A value more than this factor away from its references is flagged'),
  col('options', 'string', 'SELECT: the choices, `value=label` joined by "; "'),
  col(
    'activityDefinitionKey',
    'string',
    'ACTIVITY: the definition that calculates it (activity-definitions.csv)',
  ),
];

export const UNIT_COLUMNS: Column[] = [
  col('unitId', 'string', 'The unit'),
  col('symbol', 'string', 'Its symbol'),
  col('name', 'string', 'Its name'),
  col('dimension', 'string', 'What it measures (energy, mass, …); conversions stay within one'),
  col('factorToBase', 'number', 'Multiply by this to convert to the dimension’s base unit'),
  col('baseUnit', 'string', 'The dimension’s base unit (factor 1)'),
  col('common', 'boolean', 'From the shared catalogue (not the organization’s own)'),
];

/** Everything a pack's descriptive tables need, read once at its start. */
export interface PackReference {
  units: Awaited<ReturnType<typeof packUnits>>;
  elements: Awaited<ReturnType<typeof packFormElements>>;
  items: Record<string, unknown>[];
}

export async function packReference(tx: Tx, organizationId: string): Promise<PackReference> {
  return {
    units: await packUnits(tx, organizationId),
    elements: await packFormElements(tx, organizationId, null),
    items: await packDatasetItems(tx, organizationId),
  };
}

export function unitRows(ref: PackReference): ExportRow[] {
  const base = new Map<string, string>();
  for (const u of ref.units)
    if (u.factor_to_base === 1 && !base.has(u.dimension)) base.set(u.dimension, u.symbol);
  return ref.units.map((u) => [
    u.id,
    u.symbol,
    u.name,
    u.dimension,
    u.factor_to_base,
    base.get(u.dimension) ?? null,
    u.organization_id === null,
  ]);
}

export function formRows(ref: PackReference, formId: string | null, definitionKeys: Map<string, string>) {
  const symbol = new Map(ref.units.map((u) => [u.id, u.symbol]));
  return ref.elements
    .filter((e) => formId === null || e.form_id === formId)
    .map(
      (e): ExportRow => [
        e.form_id,
        e.form_name,
        e.period_type,
        e.due_days,
        e.id,
        e.key,
        e.label,
        e.position,
        e.type,
        e.required,
        e.unit_id ? (symbol.get(e.unit_id) ?? null) : null,
        e.aggregation,
        e.min_value,
        e.max_value,
        e.integer_only,
        e.warn_change_factor,
        e.options?.map((o) => `${o.value}=${o.label}`).join('; ') || null,
        e.activity_definition_id ? (definitionKeys.get(e.activity_definition_id) ?? null) : null,
      ],
    );
}

export function datasetRows(ref: PackReference): ExportRow[] {
  return ref.items.map((r) => [
    r['dataset_id'],
    r['dataset_name'],
    r['data_source'],
    r['version'],
    r['dataset_description'],
    r['is_common'],
    r['id'],
    r['key'],
    r['name'],
    r['value'],
    r['unit'],
    r['input_unit'],
    r['year'],
    r['description'],
    r['link'],
    r['updated_at'],
  ]);
}

/**
 * An indicator's formula for people: operators and numbers as written, each operand in braces by
 * name with its unit, e.g. `{Energy / Electricity (elec), kWh} * {Fuel factors / grid-uk 2025,
 * kgCO2e per kWh}`.
 */
export function readableExpression(
  parts: ExpressionPart[],
  ref: PackReference,
  indicatorNames: Map<string, string>,
): string {
  const symbol = new Map(ref.units.map((u) => [u.id, u.symbol]));
  const elements = new Map(ref.elements.map((e) => [e.id, e]));
  const items = new Map(ref.items.map((i) => [i['id'] as string, i]));
  const datasets = new Map(ref.items.map((i) => [i['dataset_id'] as string, i['dataset_name'] as string]));
  const per = (unit: unknown, input: unknown) =>
    unit ? `, ${String(unit)}${input ? ` per ${String(input)}` : ''}` : '';
  const operand = (p: ExpressionPart): string => {
    if (p.type === 'formElement') {
      const e = elements.get(p.value);
      if (!e) return '{a deleted element}';
      const unit = e.unit_id ? symbol.get(e.unit_id) : undefined;
      return `{${e.form_name} / ${e.label} (${e.key})${unit ? `, ${unit}` : ''}}`;
    }
    if (p.type === 'activity') {
      const [formId, key] = p.value.split(':');
      const e = ref.elements.find((x) => x.form_id === formId && x.key === key);
      return e ? `{${e.form_name} / ${e.label} (${e.key}), activities}` : '{activities of a deleted element}';
    }
    if (p.type === 'datasetItem') {
      const item = isUuid(p.value) ? items.get(p.value) : undefined;
      if (item)
        return `{${String(item['dataset_name'])} / ${String(item['key'])} ${String(item['year'])}${per(item['unit'], item['input_unit'])}}`;
      const datasetId = (p.metadata as { datasetId?: string } | undefined)?.datasetId;
      const dataset = datasetId ? datasets.get(datasetId) : undefined;
      return `{${dataset ?? 'a dataset'} / ${p.value}, latest year}`;
    }
    if (p.type === 'indicator') return `{indicator ${indicatorNames.get(p.value) ?? 'deleted'}}`;
    return p.value;
  };
  return parts.map(operand).join(' ').replace(/\( /g, '(').replace(/ \)/g, ')');
}

/** Every indicator, its formula for people and its value for the year over the sites exported. */
export async function indicatorRows(
  tx: Tx,
  caller: Caller,
  year: number,
  siteIds: string[] | undefined,
  now: Date,
  ref: PackReference,
): Promise<ExportRow[]> {
  const indicators = await listIndicators(tx, caller);
  const names = new Map(indicators.map((i) => [i.id, i.name]));
  const rows: ExportRow[] = [];
  for (let i = 0; i < indicators.length; i += 500) {
    const part = indicators.slice(i, i + 500);
    const { results } = await currentValues(
      tx,
      caller,
      { indicatorIds: part.map((x) => x.id), year, ...(siteIds ? { siteIds } : {}) },
      now,
    );
    for (const indicator of part) {
      const r = results[indicator.id]!;
      rows.push([
        indicator.id,
        indicator.name,
        readableExpression(indicator.expressionParts, ref, names),
        year,
        r.value,
        r.unit,
        r.displayValue,
        r.displayUnit,
        r.issues,
        indicator.expressionParts,
      ]);
    }
  }
  return rows;
}

/** The year's locks (live and lifted) on every site or on a site the caller can read. */
export async function lockRows(
  tx: Tx,
  caller: Caller,
  year: number,
  formId: string | null,
): Promise<ExportRow[]> {
  const scope = await siteScope(tx, caller);
  const rows = await yearLockRows(tx, caller.organizationId, year, formId);
  return rows
    .filter((r) => r['site_id'] === null || scope.all || scope.siteIds.has(r['site_id'] as string))
    .map((r) => [
      r['id'],
      r['form_id'],
      r['form_name'],
      r['year'],
      r['period_unit'],
      r['site_id'],
      r['site_name'],
      r['locked_by'],
      r['created_at'],
      r['unlocked_by'],
      r['unlocked_at'],
    ]);
}

/**
 * The history rows with each value snapshot's `selectedUnitId` replaced by `selectedUnit`, the
 * unit's symbol (the unit the value was entered in; null when it was entered in the element's).
 */
export function historyWithUnits(ref: PackReference): (row: ExportRow) => ExportRow {
  return historyRowsWithUnits(unitSymbols(ref));
}

/** Each unit's symbol by its id. */
export const unitSymbols = (ref: PackReference) => new Map(ref.units.map((u) => [u.id, u.symbol]));
