import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

/** One element on one site and period: what a no-activity marker is about. */
/**
 * The id of a period's marker, derived from the period (a name-based UUID): marking, unmarking
 * and unmarking again all answer the same id, so unmarking is idempotent like marking.
 */
export function markerIdOf(organizationId: string, slot: Slot): string {
  const hash = createHash('sha256')
    .update(
      ['no-activity', organizationId, slot.elementId, slot.siteId, slot.year, slot.periodUnit].join('|'),
    )
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface Slot {
  elementId: string;
  siteId: string;
  year: number;
  periodUnit: number;
}

/** No-activity markers; every method takes the organization id. */
export const markersRepository = {
  /**
   * Serializes marking and writing activities for one form-site until the transaction ends, so
   * that a marker and activities of the same period cannot be stored by two requests at once.
   */
  async lockFormSite(tx: Tx, formSiteId: string) {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`sdcs-activities:${formSiteId}`}, 0))`.execute(
      tx,
    );
  },

  async slotHasActivities(tx: Tx, organizationId: string, slot: Slot): Promise<boolean> {
    const row = await tx
      .selectFrom('activities')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('element_id', '=', slot.elementId)
      .where('site_id', '=', slot.siteId)
      .where('year', '=', slot.year)
      .where('period_unit', '=', slot.periodUnit)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Stores the marker unless it exists; answers its id either way. */
  async mark(tx: Tx, organizationId: string, formId: string, slot: Slot, userId: string): Promise<string> {
    const inserted = await tx
      .insertInto('no_activity_markers')
      .values({
        id: markerIdOf(organizationId, slot),
        organization_id: organizationId,
        form_id: formId,
        element_id: slot.elementId,
        site_id: slot.siteId,
        year: slot.year,
        period_unit: slot.periodUnit,
        created_by: userId,
      })
      .onConflict((oc) =>
        oc.columns(['organization_id', 'element_id', 'site_id', 'year', 'period_unit']).doNothing(),
      )
      .returning('id')
      .executeTakeFirst();
    if (inserted) return inserted.id;
    const existing = await tx
      .selectFrom('no_activity_markers')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('element_id', '=', slot.elementId)
      .where('site_id', '=', slot.siteId)
      .where('year', '=', slot.year)
      .where('period_unit', '=', slot.periodUnit)
      .executeTakeFirstOrThrow();
    return existing.id;
  },

  /** Removes the marker; answers its id, or undefined when there was none. */
  async unmark(tx: Tx, organizationId: string, slot: Slot): Promise<string | undefined> {
    const row = await tx
      .deleteFrom('no_activity_markers')
      .where('organization_id', '=', organizationId)
      .where('element_id', '=', slot.elementId)
      .where('site_id', '=', slot.siteId)
      .where('year', '=', slot.year)
      .where('period_unit', '=', slot.periodUnit)
      .returning('id')
      .executeTakeFirst();
    return row?.id;
  },

  /** Removes the markers of these slots (activities were written there). */
  async removeForSlots(tx: Tx, organizationId: string, slots: Slot[]) {
    if (slots.length === 0) return;
    await sql`
      delete from no_activity_markers m
       using jsonb_to_recordset(${JSON.stringify(slots)}::jsonb)
             as r("elementId" uuid, "siteId" uuid, year int, "periodUnit" int)
       where m.organization_id = ${organizationId} and m.element_id = r."elementId"
         and m.site_id = r."siteId" and m.year = r.year and m.period_unit = r."periodUnit"`.execute(tx);
  },
};
