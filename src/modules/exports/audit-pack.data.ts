import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { siteScope } from '../access/index.ts';
import { currentValues, listIndicators } from '../indicators/index.ts';
import type { Column, ExportRow } from './exports.columns.ts';
import { datasetItemRows, yearLockRows } from './exports.repository.ts';

const col = (name: string, type: Column['type'], description: string): Column => ({
  name,
  type,
  description,
});

export const DATASET_COLUMNS: Column[] = [
  col('datasetId', 'string', 'The dataset'),
  col('datasetName', 'string', 'Its name'),
  col('common', 'boolean', 'A common dataset (shared by every organization)'),
  col('itemId', 'string', 'The coefficient (dataset item)'),
  col('key', 'string', 'Its key, as calculations look it up'),
  col('label', 'string', 'Its label'),
  col('value', 'number', 'Its value'),
  col('unit', 'string', 'The unit it yields'),
  col('inputUnit', 'string', 'The unit it applies per'),
  col('year', 'integer', 'Its year'),
  col('updatedAt', 'datetime', 'When it last changed'),
];

export const INDICATOR_COLUMNS: Column[] = [
  col('indicatorId', 'string', 'The indicator'),
  col('name', 'string', 'Its name'),
  col('expression', 'json', 'Its expression parts, as stored'),
  col('year', 'integer', 'The year computed'),
  col('value', 'number', 'Its value over the sites exported, in its unit (empty when it cannot be computed)'),
  col('unit', 'string', 'The unit of `value`'),
  col('displayValue', 'number', 'The value in the display unit'),
  col('displayUnit', 'string', 'The display unit'),
  col('issues', 'json', 'Why a value is missing or partial (noData, missingDatasetItem, …)'),
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

/**
 * The coefficients the organization's calculations and indicators can use: its own datasets'
 * items and those of the common datasets (calculations do not record which ones they looked up).
 */
export async function datasetRows(tx: Tx, caller: Caller): Promise<ExportRow[]> {
  const rows = await datasetItemRows(tx, caller.organizationId);
  return rows.map((r) => [
    r['dataset_id'],
    r['dataset_name'],
    r['is_common'],
    r['id'],
    r['key'],
    r['name'],
    r['value'],
    r['unit'],
    r['input_unit'],
    r['year'],
    r['updated_at'],
  ]);
}

/** Every indicator with its expression and its value for the year over the sites exported. */
export async function indicatorRows(
  tx: Tx,
  caller: Caller,
  year: number,
  siteIds: string[] | undefined,
  now: Date,
): Promise<ExportRow[]> {
  const indicators = await listIndicators(tx, caller);
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
        indicator.expressionParts,
        year,
        r.value,
        r.unit,
        r.displayValue,
        r.displayUnit,
        r.issues,
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
