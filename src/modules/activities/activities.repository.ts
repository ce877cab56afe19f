import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import { appendHistory } from '../../db/history.ts';
import type { ActivityHistoryAction } from '../../db/schema/index.ts';
import { chunks } from '../../lib/chunks.ts';
import { inSiteScope, type SiteScope } from '../access/index.ts';
import type { UsedCoefficient } from './activities.calculate.ts';

/** What the history keeps of an activity before and after a change. */
export interface ActivitySnapshot {
  input: Record<string, unknown>;
  value: number;
  metadata: Record<string, unknown>;
}

export interface ActivityInsert extends ActivitySnapshot {
  id: string;
  /** The coefficients the calculation looked up (exports); null: not recorded. */
  coefficients?: UsedCoefficient[] | null;
  valueId: string;
  elementId: string;
  definitionId: string;
  formSiteId: string;
  siteId: string;
  year: number;
  periodUnit: number;
  position: number;
}

export interface ActivityUpdate extends ActivitySnapshot {
  id: string;
  /** The coefficients the calculation looked up (exports); null: not recorded. */
  coefficients?: UsedCoefficient[] | null;
  definitionId: string;
}

export interface ActivityHistoryWrite {
  activityId: string;
  action: ActivityHistoryAction;
  before: ActivitySnapshot | null;
  after: ActivitySnapshot | null;
}

/** Activity rows and their history; every method takes the organization id. */
export const activitiesRepository = {
  /** The activities of these values (element, period slots), locked, in list order. */
  lockByValues(tx: Tx, organizationId: string, valueIds: string[]) {
    if (valueIds.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('activities')
      .select(['id', 'form_element_submission_id', 'position', 'input', 'value', 'metadata'])
      .where('organization_id', '=', organizationId)
      .where('form_element_submission_id', 'in', valueIds)
      .orderBy('form_element_submission_id')
      .orderBy('position')
      .forUpdate()
      .execute();
  },

  /** Inserts activities: one statement per 2,500, the rows as one JSON parameter. */
  async insert(tx: Tx, organizationId: string, userId: string, rows: ActivityInsert[]) {
    for (const part of chunks(rows, 2_500)) {
      const doc = part.map((r) => ({
        id: r.id,
        organization_id: organizationId,
        form_element_submission_id: r.valueId,
        element_id: r.elementId,
        activity_definition_id: r.definitionId,
        form_site_id: r.formSiteId,
        site_id: r.siteId,
        year: r.year,
        period_unit: r.periodUnit,
        position: r.position,
        input: r.input,
        value: r.value,
        metadata: r.metadata,
        coefficients: r.coefficients ?? null,
        user_id: userId,
      }));
      await sql`
        insert into activities (id, organization_id, form_element_submission_id, element_id,
               activity_definition_id, form_site_id, site_id, year, period_unit, position, input,
               value, metadata, coefficients, user_id)
        select id, organization_id, form_element_submission_id, element_id, activity_definition_id,
               form_site_id, site_id, year, period_unit, position, input, value, metadata, coefficients, user_id
          from jsonb_populate_recordset(null::activities, ${JSON.stringify(doc)}::jsonb)`.execute(tx);
    }
  },

  /** Rewrites input, value, metadata and definition of activities, one statement per chunk. */
  async update(tx: Tx, organizationId: string, userId: string | null, rows: ActivityUpdate[]) {
    for (const part of chunks(rows)) {
      const doc = part.map((r) => ({
        id: r.id,
        input: r.input,
        value: r.value,
        metadata: r.metadata,
        coefficients: r.coefficients ?? null,
        definition_id: r.definitionId,
      }));
      await sql`
        update activities a
           set input = r.input, value = r.value, metadata = r.metadata,
               activity_definition_id = r.definition_id, coefficients = r.coefficients,
               user_id = coalesce(${userId}::uuid, a.user_id), updated_at = now()
          from jsonb_to_recordset(${JSON.stringify(doc)}::jsonb)
               as r(id uuid, input jsonb, value double precision, metadata jsonb, coefficients jsonb,
                  definition_id uuid)
         where a.organization_id = ${organizationId} and a.id = r.id`.execute(tx);
    }
  },

  async remove(tx: Tx, organizationId: string, ids: string[]) {
    for (const part of chunks(ids)) {
      await tx
        .deleteFrom('activities')
        .where('organization_id', '=', organizationId)
        .where('id', 'in', part)
        .execute();
    }
  },

  async insertHistory(tx: Tx, organizationId: string, userId: string, rows: ActivityHistoryWrite[]) {
    await appendHistory(
      tx,
      'activity_history',
      rows.map((r) => ({
        organization_id: organizationId,
        activity_id: r.activityId,
        action: r.action,
        user_id: userId,
        before: r.before,
        after: r.after,
      })),
    );
  },

  /**
   * The next page of a definition's activities on the scope's sites after (year, id), not
   * locked: what to lock next.
   */
  definitionPage(
    tx: Tx,
    organizationId: string,
    definitionId: string,
    after: { year: number; id: string } | null,
    limit: number,
    scope: SiteScope,
  ) {
    let query = tx
      .selectFrom('activities as a')
      .select(['a.id', 'a.year', 'a.form_element_submission_id'])
      .where('a.organization_id', '=', organizationId)
      .where('a.activity_definition_id', '=', definitionId)
      .where((eb) => inSiteScope(eb, 'a.site_id', scope));
    if (after) query = query.where(sql<boolean>`(a.year, a.id) > (${after.year}, ${after.id}::uuid)`);
    return query.orderBy('a.year').orderBy('a.id').limit(limit).execute();
  },

  /** Activities of a definition by id, with their sites, in (year, id) order. */
  definitionActivities(tx: Tx, organizationId: string, definitionId: string, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('activities as a')
      .innerJoin('sites as s', (j) =>
        j.onRef('s.organization_id', '=', 'a.organization_id').onRef('s.id', '=', 'a.site_id'),
      )
      .innerJoin('form_sites as fs', (j) =>
        j.onRef('fs.organization_id', '=', 'a.organization_id').onRef('fs.id', '=', 'a.form_site_id'),
      )
      .select([
        'a.id',
        'fs.form_id',
        'a.form_element_submission_id',
        'a.input',
        'a.value',
        'a.metadata',
        'a.year',
        'a.period_unit',
        'a.site_id',
        's.name as site_name',
        's.metadata as site_metadata',
      ])
      .where('a.organization_id', '=', organizationId)
      .where('a.activity_definition_id', '=', definitionId)
      .where('a.id', 'in', ids)
      .orderBy('a.year')
      .orderBy('a.id')
      .execute();
  },

  /**
   * An activity whose value is visible (live form and element, active form-site), its value
   * locked (which keeps the value's activities as read, see `submissionValuesRepository.lockValueIds`).
   */
  async findForUpdate(tx: Tx, organizationId: string, id: string) {
    const row = await tx
      .selectFrom('activities as a')
      .innerJoin('form_element_submissions as v', (j) =>
        j
          .onRef('v.organization_id', '=', 'a.organization_id')
          .onRef('v.id', '=', 'a.form_element_submission_id'),
      )
      .innerJoin('form_sites as fs', (j) =>
        j.onRef('fs.organization_id', '=', 'a.organization_id').onRef('fs.id', '=', 'a.form_site_id'),
      )
      .innerJoin('forms as f', (j) =>
        j.onRef('f.organization_id', '=', 'fs.organization_id').onRef('f.id', '=', 'fs.form_id'),
      )
      .innerJoin('form_elements as e', (j) =>
        j.onRef('e.organization_id', '=', 'a.organization_id').onRef('e.id', '=', 'a.element_id'),
      )
      .innerJoin('sites as s', (j) =>
        j.onRef('s.organization_id', '=', 'a.organization_id').onRef('s.id', '=', 'a.site_id'),
      )
      .select([
        'a.id',
        'a.form_element_submission_id',
        'a.activity_definition_id',
        'a.position',
        'a.input',
        'a.value',
        'a.metadata',
        'a.year',
        'a.period_unit',
        'a.site_id',
        'fs.form_id',
        's.name as site_name',
        's.metadata as site_metadata',
        'v.value as list',
        'v.original_value',
        'v.selected_unit_id',
        'v.status',
      ])
      .where('a.organization_id', '=', organizationId)
      .where('a.id', '=', id)
      .where('v.deleted_at', 'is', null)
      .where('fs.active', '=', true)
      .where('f.deleted_at', 'is', null)
      .where('e.deleted_at', 'is', null)
      .forUpdate('v')
      .executeTakeFirst();
    if (!row) return undefined;
    // The statement above read the activity from its snapshot, taken before it waited for the
    // value's lock: read it again, now that the change it waited for is visible (no lost update).
    const current = await tx
      .selectFrom('activities')
      .select(['input', 'value', 'metadata'])
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    return current ? { ...row, ...current } : undefined;
  },

  /** The inputs of a value's activities, in list order. */
  async inputsOf(tx: Tx, organizationId: string, valueId: string) {
    const rows = await tx
      .selectFrom('activities')
      .select('input')
      .where('organization_id', '=', organizationId)
      .where('form_element_submission_id', '=', valueId)
      .orderBy('position')
      .execute();
    return rows.map((r) => r.input);
  },

  /** What a calculation's `context.site` shows of a site. */
  site(tx: Tx, organizationId: string, siteId: string) {
    return tx
      .selectFrom('sites')
      .select(['id', 'name', 'metadata'])
      .where('organization_id', '=', organizationId)
      .where('id', '=', siteId)
      .executeTakeFirstOrThrow();
  },
};
