import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { ActivityInputDefinition } from '../../db/schema/index.ts';

/** The organization's name (an audit pack's manifest names it). */
export async function organizationName(tx: Tx, organizationId: string): Promise<string> {
  const row = await tx
    .selectFrom('organizations')
    .select('name')
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return row.name;
}

/** The units the organization can use: the shared catalogue and its own, by dimension and factor. */
export function packUnits(tx: Tx, organizationId: string) {
  return tx
    .selectFrom('units')
    .select(['id', 'organization_id', 'symbol', 'name', 'dimension', 'factor_to_base'])
    .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]))
    .orderBy('dimension')
    .orderBy('factor_to_base')
    .orderBy('symbol')
    .orderBy('id')
    .execute();
}

/** The organization's live forms and their live elements, in form name and element order. */
export function packFormElements(tx: Tx, organizationId: string, formId: string | null) {
  let query = tx
    .selectFrom('forms as f')
    .innerJoin('form_elements as e', (j) =>
      j.onRef('e.organization_id', '=', 'f.organization_id').onRef('e.form_id', '=', 'f.id'),
    )
    .select([
      'f.id as form_id',
      'f.name as form_name',
      'f.period_type',
      'f.due_days',
      'e.id',
      'e.key',
      'e.label',
      'e.type',
      'e.required',
      'e.unit_id',
      'e.options',
      'e.activity_definition_id',
      'e.aggregation',
      'e.min_value',
      'e.max_value',
      'e.integer_only',
      'e.warn_change_factor',
      'e.position',
    ])
    .where('f.organization_id', '=', organizationId)
    .where('f.deleted_at', 'is', null)
    .where('e.deleted_at', 'is', null);
  if (formId) query = query.where('f.id', '=', formId);
  return query.orderBy('f.name').orderBy('f.id').orderBy('e.position').orderBy('e.id').execute();
}

/**
 * The dataset items of the organization's own datasets and of the common ones, with their
 * dataset's provenance (source, edition, description) and their input unit.
 */
export async function packDatasetItems(tx: Tx, organizationId: string): Promise<Record<string, unknown>[]> {
  const rows = await sql<Record<string, unknown>>`
    select d.id as dataset_id, d.name as dataset_name, d.description as dataset_description,
           d.data_source, d.version, d.is_common, i.id, i.key, i.name, i.value, i.unit,
           iu.symbol as input_unit, i.year, i.description, i.link, i.updated_at
      from dataset_items i
      join datasets d on d.id = i.dataset_id
      left join units iu on iu.id = i.input_unit_id
     where d.organization_id = ${organizationId} or d.is_common
     order by d.name, d.id, i.key, i.year, i.id`.execute(tx);
  return rows.rows;
}

/** An activity definition as the pack describes it. */
export interface PackDefinition {
  id: string;
  key: string;
  name: string;
  description: string | null;
  is_common: boolean;
  own: boolean;
  inputs: ActivityInputDefinition[];
  unit: string | null;
  calc_code: string;
  updated_at: Date;
}

/**
 * The activity definitions a pack describes: the organization's own, those its forms' ACTIVITY
 * elements use, and those of `extra` (the definitions of the activities exported).
 */
export async function packDefinitions(
  tx: Tx,
  organizationId: string,
  extra: readonly string[],
): Promise<PackDefinition[]> {
  const rows = await sql<PackDefinition>`
    select d.id, d.key, d.name, d.description, d.is_common, d.organization_id = ${organizationId} as own,
           d.inputs, u.symbol as unit, d.calc_code, d.updated_at
      from activity_definitions d
      left join units u on u.id = d.unit_id
     where d.organization_id = ${organizationId}
        or d.id in (select e.activity_definition_id from form_elements e
                     where e.organization_id = ${organizationId} and e.activity_definition_id is not null)
        or d.id = any(${[...extra]}::uuid[])
     order by d.key, d.id`.execute(tx);
  return rows.rows;
}

/** The calcCode versions kept (0054) of `definitionIds` whose SHA-256 is one of `hashes`. */
export function keptCodeVersions(tx: Tx, definitionIds: readonly string[], hashes: readonly string[]) {
  if (definitionIds.length === 0 || hashes.length === 0) return Promise.resolve([]);
  return tx
    .selectFrom('activity_calc_code_versions')
    .select(['definition_id', 'sha256', 'calc_code', 'first_seen_at'])
    .where('definition_id', 'in', [...definitionIds])
    .where('sha256', 'in', [...hashes])
    .orderBy('definition_id')
    .orderBy('first_seen_at')
    .orderBy('sha256')
    .execute();
}
