import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { ActivityInputDefinition, PeriodType } from '../../db/schema/index.ts';
import { ACTIVITY_HEAD_COLUMNS, ACTIVITY_TAIL_COLUMNS, type Column, type Row } from './exports.columns.ts';
import { type ExportContext, periodText } from './exports.filters.ts';
import type { OrderedQuery } from './exports.reader.ts';
import { commonFilters } from './exports.repository.ts';

/** A coefficient as the activities table records it (see `activities.calculate.ts`). */
interface UsedCoefficient {
  key: string;
  datasetId: string | null;
  datasetItemId: string | null;
  year: number | null;
  value: number | null;
  unit: string | null;
}

/** Names of the datasets the organization can read (its own and the common ones), by id. */
export async function datasetNames(tx: Tx, organizationId: string): Promise<Map<string, string>> {
  const rows = await tx
    .selectFrom('datasets')
    .select(['id', 'name'])
    .where((eb) => eb.or([eb('organization_id', '=', organizationId), eb('is_common', '=', true)]))
    .execute();
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

interface ActivityRecord {
  id: string;
  value_id: string;
  position: number;
  site_id: string;
  form_id: string;
  form_name: string;
  period_type: PeriodType;
  element_key: string;
  year: number;
  period_unit: number;
  definition_id: string;
  definition_key: string;
  input: Record<string, unknown>;
  value: number;
  unit: string | null;
  metadata: unknown;
  calc_code_sha256: string | null;
  coefficients: UsedCoefficient[] | null;
  user_name: string | null;
  user_email: string | null;
  updated_at: Date;
}

function activityFilters(ctx: ExportContext) {
  const extra = [sql`a.created_at <= ${ctx.asOf}`];
  if (ctx.key) extra.push(sql`e.key = ${ctx.key}`);
  if (ctx.statuses) extra.push(sql`v.status = any(${ctx.statuses}::text[])`);
  if (ctx.updatedSince) extra.push(sql`a.updated_at >= ${ctx.updatedSince}`);
  return sql`${commonFilters(ctx, 'a')} and ${sql.join(extra, sql` and `)}
    and v.deleted_at is null and fs.active and f.deleted_at is null and e.deleted_at is null`;
}

const FROM = sql`
  from activities a
  join form_element_submissions v on v.organization_id = a.organization_id and v.id = a.form_element_submission_id
  join form_sites fs on fs.organization_id = a.organization_id and fs.id = a.form_site_id
  join forms f on f.organization_id = a.organization_id and f.id = fs.form_id
  join form_elements e on e.organization_id = a.organization_id and e.id = a.element_id`;

/**
 * The input columns of the activities an export reads: `input.<name>` for each input of their
 * definitions (ordered by key), in each definition's order; a name shared by two definitions
 * is one column.
 */
export async function inputColumns(
  tx: Tx,
  ctx: ExportContext,
): Promise<{ columns: Column[]; names: string[] }> {
  const rows = await sql<{ key: string; inputs: ActivityInputDefinition[] }>`
    select d.key, d.inputs from activity_definitions d
     where d.id in (select distinct a.activity_definition_id ${FROM} where ${activityFilters(ctx)})
     order by d.key, d.id`.execute(tx);
  const names: string[] = [];
  for (const definition of rows.rows)
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
    statement(after, limit) {
      return sql<ActivityRecord>`
        select a.id, a.form_element_submission_id as value_id, a.position, a.site_id, f.id as form_id,
               f.name as form_name, f.period_type, e.key as element_key, a.year, a.period_unit,
               d.id as definition_id, d.key as definition_key, a.input, a.value, eu.symbol as unit,
               a.metadata, a.calc_code_sha256, a.coefficients, u.name as user_name, u.email as user_email, a.updated_at
          ${FROM}
          join activity_definitions d on d.id = a.activity_definition_id
          left join units eu on eu.id = coalesce(d.unit_id, e.unit_id)
          left join users u on u.id = a.user_id
         where ${activityFilters(ctx)} ${after === null ? sql`` : sql`and a.id > ${after}::uuid`}
         order by a.id
         ${limit === null ? sql`` : sql`limit ${limit}`}`;
    },
  };
}

export function activityCells(
  r: ActivityRecord,
  ctx: ExportContext,
  inputNames: string[],
  datasets: Map<string, string>,
): Row {
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
