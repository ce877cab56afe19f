import type { Tx } from '../../db/client.ts';
import type { UsedCoefficient } from '../activities/index.ts';
import {
  ACTIVITY_HEAD_COLUMNS,
  ACTIVITY_TAIL_COLUMNS,
  type Column,
  type ExportRow,
} from './exports.columns.ts';
import { periodText } from './exports.filters.ts';
import type { OrderedQuery } from './exports.reader.ts';
import type { ExportContext } from './exports.repository.ts';
import {
  type ActivityRecord,
  activitiesStatement,
  exportedActivityDefinitions,
  readableDatasets,
} from './exports.repository.ts';

/** Names of the datasets the organization can read (its own and the common ones), by id. */
export async function datasetNames(tx: Tx, organizationId: string): Promise<Map<string, string>> {
  const rows = await readableDatasets(tx, organizationId);
  return new Map(rows.map((r) => [r.id, r.name]));
}

function coefficientCells(list: UsedCoefficient[] | null, datasets: Map<string, string>) {
  if (!list) return [null, null];
  const named = list.map((c) => ({
    key: c.key,
    datasetId: c.datasetId,
    datasetName: c.datasetId ? (datasets.get(c.datasetId) ?? null) : null,
    datasetItemId: c.datasetItemId,
    year: c.year,
    value: c.value,
    unit: c.unit,
  }));
  const text = named
    .map((c) =>
      c.value === null
        ? `${c.key} = not found`
        : `${c.key} (${c.datasetName ?? c.datasetId}, ${c.year}) = ${c.value}${c.unit ? ` ${c.unit}` : ''}`,
    )
    .join('; ');
  return [named, text];
}

/**
 * The input columns of the activities an export reads: `input.<name>` for each input of their
 * definitions (ordered by key), in each definition's order; a name shared by two definitions
 * is one column.
 */
export async function inputColumns(
  tx: Tx,
  ctx: ExportContext,
): Promise<{ columns: Column[]; names: string[] }> {
  const definitions = await exportedActivityDefinitions(tx, ctx);
  const names: string[] = [];
  for (const definition of definitions)
    for (const input of definition.inputs) if (!names.includes(input.name)) names.push(input.name);
  return {
    names,
    columns: names.map((name) => ({
      name: `input.${name}`,
      type: 'json' as const,
      description: `The input \`${name}\` as entered`,
    })),
  };
}

export const activityColumns = (inputs: Column[]): Column[] => [
  ...ACTIVITY_HEAD_COLUMNS,
  ...inputs,
  ...ACTIVITY_TAIL_COLUMNS,
];

/** The year's activities (of live values on active form-sites), in id order. */
export function activitiesQuery(ctx: ExportContext): OrderedQuery<ActivityRecord, string> {
  return {
    keyOf: (row) => row.id,
    statement: (after, limit) => activitiesStatement(ctx, after, limit),
  };
}

export function activityCells(
  r: ActivityRecord,
  ctx: ExportContext,
  inputNames: string[],
  datasets: Map<string, string>,
): ExportRow {
  const site = ctx.sites.get(r.site_id);
  return [
    r.id,
    r.value_id,
    r.position,
    r.site_id,
    site?.code ?? null,
    site?.name ?? null,
    site?.path ?? null,
    r.form_id,
    r.form_name,
    r.element_key,
    r.year,
    r.period_unit,
    periodText(r.year, r.period_type, r.period_unit),
    r.definition_id,
    r.definition_key,
    ...inputNames.map((name) => r.input[name] ?? null),
    r.value,
    r.unit,
    r.metadata,
    r.calc_code_sha256,
    ...coefficientCells(r.coefficients, datasets),
    r.user_name,
    r.user_email,
    r.updated_at,
  ];
}
