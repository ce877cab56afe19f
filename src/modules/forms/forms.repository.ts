import { sql } from 'kysely';
import { json, type Tx } from '../../db/client.ts';
import type { Aggregation, ElementType, PeriodType, SelectOption } from '../../db/schema/index.ts';

const FORM_COLUMNS = [
  'id',
  'organization_id',
  'name',
  'description',
  'period_type',
  'metadata',
  'names',
  'created_at',
  'updated_at',
  'due_days',
] as const;

const ELEMENT_COLUMNS = [
  'id',
  'form_id',
  'key',
  'label',
  'labels',
  'help_texts',
  'type',
  'required',
  'unit_id',
  'options',
  'activity_definition_id',
  'metadata',
  'position',
  'aggregation',
  'min_value',
  'max_value',
  'integer_only',
  'warn_change_factor',
  'deleted_at',
] as const;

/** A form element as the service plans to store it (new rows carry a generated id). */
export interface ElementWrite {
  id: string;
  key: string;
  label: string;
  labels: Record<string, string>;
  help_texts: Record<string, string>;
  type: ElementType;
  required: boolean;
  unit_id: string | null;
  options: SelectOption[] | null;
  activity_definition_id: string | null;
  metadata: Record<string, unknown>;
  position: number;
  aggregation: Aggregation;
  min_value: number | null;
  max_value: number | null;
  integer_only: boolean;
  warn_change_factor: number | null;
}

export interface FormFields {
  name: string;
  description: string | null;
  periodType: PeriodType;
  metadata: Record<string, unknown>;
  names: Record<string, string>;
  dueDays: number | null;
}

/** Forms and their elements of one organization; every method takes the organization id. */
export const formsRepository = {
  list(tx: Tx, organizationId: string) {
    return tx
      .selectFrom('forms')
      .select(FORM_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('deleted_at', 'is', null)
      .orderBy('name')
      .orderBy('id')
      .execute();
  },

  /**
   * A live form, optionally locked until the transaction ends: `update` by changes of the
   * form or its sites, `share` by submissions, so that the two never interleave.
   */
  find(tx: Tx, organizationId: string, id: string, lock?: 'update' | 'share') {
    let query = tx
      .selectFrom('forms')
      .select(FORM_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null);
    if (lock === 'update') query = query.forUpdate();
    if (lock === 'share') query = query.forShare();
    return query.executeTakeFirst();
  },

  /** Elements of the forms, by order; deleted ones only when asked for. */
  elements(tx: Tx, organizationId: string, formIds: string[], includeDeleted = false) {
    if (formIds.length === 0) return Promise.resolve([]);
    let query = tx
      .selectFrom('form_elements')
      .select(ELEMENT_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('form_id', 'in', formIds);
    if (!includeDeleted) query = query.where('deleted_at', 'is', null);
    return query.orderBy('form_id').orderBy('position').orderBy('created_at').orderBy('key').execute();
  },

  insert(tx: Tx, organizationId: string, fields: FormFields) {
    return tx
      .insertInto('forms')
      .values({
        organization_id: organizationId,
        name: fields.name,
        description: fields.description,
        period_type: fields.periodType,
        metadata: json(fields.metadata),
        names: json(fields.names),
        due_days: fields.dueDays,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  },

  async update(tx: Tx, organizationId: string, id: string, fields: FormFields) {
    await tx
      .updateTable('forms')
      .set({
        name: fields.name,
        description: fields.description,
        period_type: fields.periodType,
        metadata: json(fields.metadata),
        names: json(fields.names),
        due_days: fields.dueDays,
        updated_at: sql`now()`,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  /** Soft-deletes a form and its live elements; false when there is no such live form. */
  async softDelete(tx: Tx, organizationId: string, id: string): Promise<boolean> {
    const rows = await tx
      .updateTable('forms')
      .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returning('id')
      .execute();
    if (rows.length === 0) return false;
    await formsRepository.softDeleteElementsExcept(tx, organizationId, id, []);
    return true;
  },

  /** Soft-deletes the form's live elements whose id is not in `keep`. */
  async softDeleteElementsExcept(tx: Tx, organizationId: string, formId: string, keep: string[]) {
    let query = tx
      .updateTable('form_elements')
      .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('form_id', '=', formId)
      .where('deleted_at', 'is', null);
    if (keep.length > 0) query = query.where('id', 'not in', keep);
    await query.execute();
  },

  /**
   * Moves the keys of these elements out of the way (`~<id>` cannot be a key), so that one
   * statement can then swap or reuse keys without tripping the unique index of live keys.
   */
  async parkKeys(tx: Tx, organizationId: string, ids: string[]) {
    if (ids.length === 0) return;
    await tx
      .updateTable('form_elements')
      .set({ key: sql`'~' || id::text` })
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
  },

  /** Inserts new elements and rewrites (and revives) existing ones, in one statement. */
  async upsertElements(tx: Tx, organizationId: string, formId: string, rows: ElementWrite[]) {
    if (rows.length === 0) return;
    await tx
      .insertInto('form_elements')
      .values(
        rows.map((r) => ({
          id: r.id,
          organization_id: organizationId,
          form_id: formId,
          key: r.key,
          label: r.label,
          labels: json(r.labels),
          help_texts: json(r.help_texts),
          type: r.type,
          required: r.required,
          unit_id: r.unit_id,
          options: r.options === null ? null : json(r.options),
          activity_definition_id: r.activity_definition_id,
          metadata: json(r.metadata),
          position: r.position,
          aggregation: r.aggregation,
          min_value: r.min_value,
          max_value: r.max_value,
          integer_only: r.integer_only,
          warn_change_factor: r.warn_change_factor,
        })),
      )
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          key: eb.ref('excluded.key'),
          label: eb.ref('excluded.label'),
          labels: eb.ref('excluded.labels'),
          help_texts: eb.ref('excluded.help_texts'),
          type: eb.ref('excluded.type'),
          required: eb.ref('excluded.required'),
          unit_id: eb.ref('excluded.unit_id'),
          options: eb.ref('excluded.options'),
          activity_definition_id: eb.ref('excluded.activity_definition_id'),
          metadata: eb.ref('excluded.metadata'),
          position: eb.ref('excluded.position'),
          aggregation: eb.ref('excluded.aggregation'),
          min_value: eb.ref('excluded.min_value'),
          max_value: eb.ref('excluded.max_value'),
          integer_only: eb.ref('excluded.integer_only'),
          warn_change_factor: eb.ref('excluded.warn_change_factor'),
          deleted_at: null,
          updated_at: sql`now()`,
        })),
      )
      .execute();
  },

  /** The elements among `ids` that have stored (not deleted) values. */
  async elementsWithValues(tx: Tx, organizationId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await tx
      .selectFrom('form_element_submissions')
      .select('element_id')
      .distinct()
      .where('organization_id', '=', organizationId)
      .where('element_id', 'in', ids)
      .where('deleted_at', 'is', null)
      .execute();
    return new Set(rows.map((r) => r.element_id));
  },

  /** Activity definitions visible to the organization (its own and common ones), by id. */
  async activityDefinitions(
    tx: Tx,
    organizationId: string,
    ids: string[],
  ): Promise<Map<string, { id: string; key: string }>> {
    if (ids.length === 0) return new Map();
    const result = await sql<{ id: string; key: string }>`
      select id, key from activity_definitions
       where id = any(${ids}::uuid[]) and (organization_id = ${organizationId} or is_common)`.execute(tx);
    return new Map(result.rows.map((r) => [r.id, r]));
  },

  /**
   * The elements among `elementIds` with a stored value in a (site, year, period) that a live
   * lock of the form covers, each with the first such lock's id.
   */
  async lockedElementValues(
    tx: Tx,
    organizationId: string,
    formId: string,
    elementIds: string[],
  ): Promise<Map<string, string>> {
    if (elementIds.length === 0) return new Map();
    const result = await sql<{ element_id: string; lock_id: string }>`
      select distinct on (v.element_id) v.element_id, l.id as lock_id
        from form_element_submissions v
        join form_locks l
          on l.organization_id = v.organization_id and l.form_id = ${formId} and l.year = v.year
         and l.unlocked_at is null
         and (l.period_unit is null or l.period_unit = v.period_unit)
         and (l.site_id is null or l.site_id = v.site_id)
       where v.organization_id = ${organizationId} and v.element_id = any(${elementIds}::uuid[])
         and v.deleted_at is null
       order by v.element_id, l.created_at, l.id`.execute(tx);
    return new Map(result.rows.map((r) => [r.element_id, r.lock_id]));
  },
};
