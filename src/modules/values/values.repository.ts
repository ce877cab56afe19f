import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import { chunks } from '../../lib/chunks.ts';

const VALUE_COLUMNS = [
  'v.id',
  'v.form_submission_id',
  'v.element_id',
  'v.period_unit',
  'v.timestamp',
  'v.value',
  'v.original_value',
  'v.selected_unit_id',
  'v.status',
  'v.user_id',
  'v.recorded_at',
  'v.deleted_at',
] as const;

/** Submissions that are visible: their form is live and their form-site active. */
export function visibleSubmissions(tx: Tx, organizationId: string) {
  return tx
    .selectFrom('form_submissions as s')
    .innerJoin('form_sites as fs', (j) =>
      j.onRef('fs.organization_id', '=', 's.organization_id').onRef('fs.id', '=', 's.form_site_id'),
    )
    .innerJoin('forms as f', (j) =>
      j.onRef('f.organization_id', '=', 'fs.organization_id').onRef('f.id', '=', 'fs.form_id'),
    )
    .where('s.organization_id', '=', organizationId)
    .where('fs.active', '=', true)
    .where('f.deleted_at', 'is', null);
}

/**
 * Stored values and their history as read (and locked) by the values module; the writes are in
 * `changes.repository.ts`. Every method takes the organization id.
 */
export const submissionValuesRepository = {
  /**
   * The stored rows (deleted ones too) of these elements in these submissions, locked: one
   * statement for all the (form, site, year) of a call. Callers match rows by submission and slot.
   */
  lockValuesOf(tx: Tx, organizationId: string, submissionIds: string[], elementIds: string[]) {
    if (submissionIds.length === 0 || elementIds.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('form_element_submissions as v')
      .select([...VALUE_COLUMNS, 'v.numeric_value'])
      .where('v.organization_id', '=', organizationId)
      .where(sql<boolean>`v.form_submission_id = any(${[...new Set(submissionIds)]}::uuid[])`)
      .where(sql<boolean>`v.element_id = any(${[...new Set(elementIds)]}::uuid[])`)
      .forUpdate()
      .execute();
  },

  /** The live values of live elements in these submissions, with their authors, in form order. */
  currentValues(tx: Tx, organizationId: string, submissionIds: string[]) {
    if (submissionIds.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('form_element_submissions as v')
      .innerJoin('form_elements as e', (j) =>
        j.onRef('e.organization_id', '=', 'v.organization_id').onRef('e.id', '=', 'v.element_id'),
      )
      .innerJoin('users as u', 'u.id', 'v.user_id')
      .select([
        ...VALUE_COLUMNS,
        'e.key as element_key',
        'u.name as user_name',
        'u.email as user_email',
        'u.image as user_image',
      ])
      .where('v.organization_id', '=', organizationId)
      .where('v.form_submission_id', 'in', submissionIds)
      .where('v.deleted_at', 'is', null)
      .where('e.deleted_at', 'is', null)
      .orderBy('v.form_submission_id')
      .orderBy('e.position')
      .orderBy('e.key')
      .orderBy('v.period_unit')
      .orderBy('v.timestamp')
      .execute();
  },

  /** A value of a visible submission, with its site and element state; optionally locked. */
  findValue(tx: Tx, organizationId: string, id: string, forUpdate = false) {
    let query = visibleSubmissions(tx, organizationId)
      .innerJoin('form_element_submissions as v', (j) =>
        j.onRef('v.organization_id', '=', 's.organization_id').onRef('v.form_submission_id', '=', 's.id'),
      )
      .innerJoin('form_elements as e', (j) =>
        j.onRef('e.organization_id', '=', 'v.organization_id').onRef('e.id', '=', 'v.element_id'),
      )
      .select([...VALUE_COLUMNS, 'fs.site_id', 'e.key as element_key', 'e.deleted_at as element_deleted_at'])
      .where('v.id', '=', id);
    if (forUpdate) query = query.forUpdate('v');
    return query.executeTakeFirst();
  },

  history(tx: Tx, organizationId: string, valueId: string) {
    return tx
      .selectFrom('form_value_history as h')
      .innerJoin('users as u', 'u.id', 'h.user_id')
      .select([
        'h.id',
        'h.value_id',
        'h.action',
        'h.user_id',
        'h.at',
        'h.before',
        'h.after',
        'h.comment',
        'u.name as user_name',
        'u.email as user_email',
      ])
      .where('h.organization_id', '=', organizationId)
      .where('h.value_id', '=', valueId)
      .orderBy('h.seq')
      .execute();
  },

  /**
   * Locks values (in id order). Every writer of activities locks the value holding them first,
   * so holding it, its activities stay as read until the transaction ends.
   */
  async lockValueIds(tx: Tx, organizationId: string, valueIds: string[]) {
    for (const part of chunks([...new Set(valueIds)].sort())) {
      await sql`select id from form_element_submissions
                 where organization_id = ${organizationId} and id = any(${part}::uuid[])
                 order by id for update`.execute(tx);
    }
  },
};
