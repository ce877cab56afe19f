import { sql } from 'kysely';
import { json, type Tx } from '../../db/client.ts';
import type { Aggregation, ElementType, PeriodType } from '../../db/schema/index.ts';
import type { ExpressionPart } from './indicators.schemas.ts';

const COLUMNS = [
  'id',
  'organization_id',
  'name',
  'label',
  'description',
  'unit_id',
  'display_unit_id',
  'tags',
  'expression_parts',
  'preferred_dataset_item_name',
  'preferred_dataset_item_dataset_id',
  'created_at',
  'updated_at',
] as const;

export interface IndicatorFields {
  name: string;
  label: string | null;
  description: string | null;
  unitId: string | null;
  displayUnitId: string | null;
  tags: string[];
  expressionParts: ExpressionPart[];
  preferredDatasetItemName: string | null;
  preferredDatasetItemDatasetId: string | null;
}

/** An element an expression names (by id, or `formId:key` for activities), with its form. */
export interface ReferencedElement {
  id: string;
  form_id: string;
  key: string;
  label: string;
  type: ElementType;
  /** A NUMBER element's unit; an ACTIVITY element's: its definition's. */
  unit_id: string | null;
  aggregation: Aggregation;
  deleted: boolean;
  form_name: string;
  /** The form's period type: how a period unit maps onto months. */
  period_type: PeriodType;
}

/** A coefficient an expression names, with its dataset's name. */
export interface ReferencedItem {
  id: string;
  dataset_id: string;
  dataset_name: string;
  name: string;
  key: string;
  value: number;
  unit: string | null;
  year: number;
  input_unit_id: string | null;
}

const row = (f: IndicatorFields) => ({
  name: f.name,
  label: f.label,
  description: f.description,
  unit_id: f.unitId,
  display_unit_id: f.displayUnitId,
  tags: f.tags,
  expression_parts: json(f.expressionParts),
  preferred_dataset_item_name: f.preferredDatasetItemName,
  preferred_dataset_item_dataset_id: f.preferredDatasetItemDatasetId,
});

/** Indicators of one organization and what their expressions reference. */
export const indicatorsRepository = {
  /** Every indicator of the organization, by name (one query, whatever their number). */
  list(tx: Tx, organizationId: string) {
    return tx
      .selectFrom('indicators')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .orderBy('name')
      .orderBy('id')
      .execute();
  },

  /**
   * The indicators `ids` and every indicator they use, directly or through others: one recursive
   * statement, so an evaluation reads what it needs, not all the organization's indicators.
   */
  closure(tx: Tx, organizationId: string, ids: readonly string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('indicators')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where(
        sql<boolean>`id = any(array(
          with recursive c(id) as (
            select unnest(${[...ids]}::uuid[])
            union
            select (p.part->>'value')::uuid
              from c join indicators i on i.organization_id = ${organizationId} and i.id = c.id
              cross join lateral jsonb_array_elements(i.expression_parts) p(part)
             where p.part->>'type' = 'indicator'
               and p.part->>'value' ~ '^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$'
          )
          select id from c))`,
      )
      .orderBy('name')
      .orderBy('id')
      .execute();
  },

  async insert(tx: Tx, organizationId: string, fields: IndicatorFields): Promise<string> {
    const created = await tx
      .insertInto('indicators')
      .values({ organization_id: organizationId, ...row(fields) })
      .returning('id')
      .executeTakeFirstOrThrow();
    return created.id;
  },

  async update(tx: Tx, organizationId: string, id: string, fields: IndicatorFields): Promise<void> {
    await tx
      .updateTable('indicators')
      .set({ ...row(fields), updated_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  async remove(tx: Tx, organizationId: string, id: string): Promise<void> {
    await tx
      .deleteFrom('indicators')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  /**
   * Serializes writers of the organization's indicators: a cycle check reads every
   * indicator, so two concurrent saves must not each miss the other's new reference.
   */
  async lockGraph(tx: Tx, organizationId: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`indicators:${organizationId}`}, 0))`.execute(
      tx,
    );
  },

  /** Elements named by id or by `formId:key` (ACTIVITY elements), deleted ones included. */
  async elements(
    tx: Tx,
    organizationId: string,
    ids: string[],
    activityRefs: string[],
  ): Promise<ReferencedElement[]> {
    if (ids.length === 0 && activityRefs.length === 0) return [];
    const result = await sql<ReferencedElement>`
      select e.id, e.form_id, e.key, e.label, e.type, coalesce(e.unit_id, d.unit_id) as unit_id, e.aggregation,
             (e.deleted_at is not null or f.deleted_at is not null) as deleted, f.name as form_name, f.period_type
        from form_elements e
        join forms f on f.organization_id = e.organization_id and f.id = e.form_id
        -- An ACTIVITY element is in the unit its definition's calcCode returns.
        left join activity_definitions d on d.id = e.activity_definition_id
       where e.organization_id = ${organizationId}
         and (e.id = any(${ids}::uuid[])
              or (e.type = 'ACTIVITY' and e.form_id::text || ':' || e.key = any(${activityRefs}::text[])))
       order by e.deleted_at nulls first`.execute(tx);
    return result.rows;
  },

  /**
   * Coefficients named by id, or by dataset and key: for a key, the item of the latest year not
   * after `maxYear` (any year when null). Own and common datasets.
   */
  async items(
    tx: Tx,
    ids: string[],
    keyRefs: { datasetId: string; key: string }[],
    maxYear: number | null,
  ): Promise<ReferencedItem[]> {
    if (ids.length === 0 && keyRefs.length === 0) return [];
    const result = await sql<ReferencedItem>`
      select i.id, i.dataset_id, d.name as dataset_name, i.name, i.key, i.value, i.unit, i.year, i.input_unit_id
        from dataset_items i join datasets d on d.id = i.dataset_id
       where i.id = any(${ids}::uuid[])
      union all
      select * from (
        select distinct on (i.dataset_id, i.key)
               i.id, i.dataset_id, d.name as dataset_name, i.name, i.key, i.value, i.unit, i.year, i.input_unit_id
          from dataset_items i join datasets d on d.id = i.dataset_id
         where i.dataset_id::text || ':' || i.key = any(${keyRefs.map((k) => `${k.datasetId}:${k.key}`)}::text[])
           and (${maxYear}::int is null or i.year <= ${maxYear}::int)
         order by i.dataset_id, i.key, i.year desc
      ) by_key`.execute(tx);
    return result.rows;
  },

  /**
   * Every coefficient a key with placeholders can resolve to: the items of the dataset whose key
   * matches `pattern` (a LIKE pattern), one per key and unit pair, any year; at most `limit`.
   */
  async candidates(tx: Tx, datasetId: string, pattern: string, limit: number): Promise<ReferencedItem[]> {
    const result = await sql<ReferencedItem>`
      select * from (
        select distinct on (i.key, i.unit, i.input_unit_id)
               i.id, i.dataset_id, d.name as dataset_name, i.name, i.key, i.value, i.unit, i.year, i.input_unit_id
          from dataset_items i join datasets d on d.id = i.dataset_id
         where i.dataset_id = ${datasetId} and i.key like ${pattern} escape '\\'
         order by i.key, i.unit, i.input_unit_id, i.year desc
      ) c order by c.key limit ${limit}`.execute(tx);
    return result.rows;
  },

  /**
   * Which of `siteIds` have values of their own (any element, status or period) in the years:
   * one index probe per site that stops at its first value.
   */
  async sitesWithOwnValues(
    tx: Tx,
    organizationId: string,
    siteIds: string[],
    fromYear: number,
    toYear: number,
  ): Promise<Set<string>> {
    if (siteIds.length === 0) return new Set();
    const result = await sql<{ id: string }>`
      select s.id from unnest(${siteIds}::uuid[]) s(id)
       where exists (
         select 1 from form_element_submissions v
          where v.organization_id = ${organizationId} and v.site_id = s.id
            and v.year between ${fromYear} and ${toYear} and v.deleted_at is null)`.execute(tx);
    return new Set(result.rows.map((r) => r.id));
  },

  /** Datasets (own or common) among `ids`. */
  async datasets(tx: Tx, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await tx.selectFrom('datasets').select(['id', 'name']).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r.name]));
  },

  /** Every unit the organization sees: the catalog and its own. */
  units(tx: Tx, organizationId: string) {
    return tx
      .selectFrom('units')
      .select(['id', 'symbol', 'name', 'dimension', 'factor_to_base'])
      .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]))
      .execute();
  },
};

/** An indicator as the repository lists it. */
export type IndicatorRow = Awaited<ReturnType<typeof indicatorsRepository.list>>[number];
