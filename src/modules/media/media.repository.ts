import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

const COLUMNS = [
  'id',
  'organization_id',
  'key',
  'file_name',
  'content_type',
  'declared_size',
  'size',
  'sha256',
  'status',
  'entity_type',
  'entity_id',
  'field_name',
  'uploaded_by',
  'created_at',
  'uploaded_at',
] as const;

export interface NewMedia {
  id: string;
  key: string;
  fileName: string;
  contentType: string;
  declaredSize: number;
  entityType: string | null;
  entityId: string;
  fieldName: string;
  uploadedBy: string;
  reservedUntil: Date | null;
}

/** Media rows of one organization; every method takes the organization id. */
export const mediaRepository = {
  insert(tx: Tx, organizationId: string, row: NewMedia) {
    return tx
      .insertInto('media')
      .values({
        id: row.id,
        organization_id: organizationId,
        key: row.key,
        file_name: row.fileName,
        content_type: row.contentType,
        declared_size: row.declaredSize,
        entity_type: row.entityType,
        entity_id: row.entityId,
        field_name: row.fieldName,
        uploaded_by: row.uploadedBy,
        reserved_until: row.reservedUntil,
      })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  },

  /** The record, locked for the caller's transaction when `lock` is set. */
  get(tx: Tx, organizationId: string, id: string, lock = false) {
    let query = tx
      .selectFrom('media')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id);
    if (lock) query = query.forUpdate();
    return query.executeTakeFirst();
  },

  /** An uploaded record by id alone: signed download URLs name no organization (system task). */
  uploadedById(tx: Tx, id: string) {
    return tx
      .selectFrom('media')
      .select(['key', 'file_name', 'content_type', 'size'])
      .where('id', '=', id)
      .where('status', '=', 'uploaded')
      .executeTakeFirst();
  },

  byKey(tx: Tx, organizationId: string, key: string) {
    return tx
      .selectFrom('media')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('key', '=', key)
      .forUpdate()
      .executeTakeFirst();
  },

  /**
   * Serializes the quota's check-then-write per organization (until the transaction ends): two
   * upload URLs asked for at once, or two uploads finishing at once, are counted one after the other.
   */
  async lockQuota(tx: Tx, organizationId: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`sdcs-media-quota:${organizationId}`}, 0))`.execute(
      tx,
    );
  },

  /** Bytes the quota counts at `now`: uploaded sizes plus the declared sizes of live reservations. */
  async quotaBytes(
    tx: Tx,
    organizationId: string,
    now: Date,
  ): Promise<{ uploaded: number; reserved: number }> {
    const row = await sql<{ uploaded: string; reserved: string }>`
      select coalesce(sum(size) filter (where status = 'uploaded'), 0)::text as uploaded,
             coalesce(sum(declared_size) filter (where status = 'pending' and reserved_until > ${now}), 0)::text
               as reserved
        from media where organization_id = ${organizationId}`.execute(tx);
    return { uploaded: Number(row.rows[0]!.uploaded), reserved: Number(row.rows[0]!.reserved) };
  },

  /** The bytes of the organization's uploaded media (what the quota counts). */
  async uploadedBytes(tx: Tx, organizationId: string): Promise<number> {
    const row = await tx
      .selectFrom('media')
      .select(sql<string>`coalesce(sum(size), 0)::text`.as('total'))
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'uploaded')
      .executeTakeFirstOrThrow();
    return Number(row.total);
  },

  /** Marks a pending record uploaded; undefined when it is not (or no longer) pending. */
  markUploaded(tx: Tx, organizationId: string, id: string, stored: { size: number; sha256: string }) {
    return tx
      .updateTable('media')
      .set({
        status: 'uploaded',
        size: stored.size,
        sha256: stored.sha256,
        uploaded_at: sql`now()`,
        updated_at: sql`now()`,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .returning(COLUMNS)
      .executeTakeFirst();
  },

  async remove(tx: Tx, organizationId: string, id: string): Promise<void> {
    await tx.deleteFrom('media').where('organization_id', '=', organizationId).where('id', '=', id).execute();
  },

  /** Current values of FILE elements that hold `mediaId`. */
  references(tx: Tx, organizationId: string, mediaId: string) {
    return tx
      .selectFrom('form_element_submissions as v')
      .innerJoin('form_elements as e', (j) =>
        j.onRef('e.organization_id', '=', 'v.organization_id').onRef('e.id', '=', 'v.element_id'),
      )
      .select(['v.id', 'v.form_submission_id', 'v.element_id', 'e.key as element_key'])
      .where('v.organization_id', '=', organizationId)
      .where('e.type', '=', 'FILE')
      .where('v.deleted_at', 'is', null)
      .where('v.value', '=', sql`to_jsonb(${mediaId}::text)`)
      .limit(5)
      .execute();
  },

  /**
   * The sites of the current FILE values that hold each of `mediaIds` (a file is attached to a
   * value of a site; the same file may be attached on several): one row per (media, site).
   */
  attachedSites(tx: Tx, organizationId: string, mediaIds: string[]) {
    if (mediaIds.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('form_element_submissions as v')
      .innerJoin('form_elements as e', (j) =>
        j.onRef('e.organization_id', '=', 'v.organization_id').onRef('e.id', '=', 'v.element_id'),
      )
      .select([sql<string>`v.value #>> '{}'`.as('media_id'), 'v.site_id'])
      .distinct()
      .where('v.organization_id', '=', organizationId)
      .where('e.type', '=', 'FILE')
      .where('v.deleted_at', 'is', null)
      .where('v.value', '=', sql<unknown>`any(array(select to_jsonb(m) from unnest(${mediaIds}::text[]) m))`)
      .execute();
  },

  /** Status and uploader of each of `ids` in the organization (missing ids are not there). */
  statuses(tx: Tx, organizationId: string, ids: string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('media')
      .select(['id', 'status', 'uploaded_by'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
  },

  /** Pending records older than `before`, across organizations (a system task). */
  stalePending(tx: Tx, before: Date, limit: number) {
    return tx
      .selectFrom('media')
      .select(['id', 'organization_id', 'key'])
      .where('status', '=', 'pending')
      .where('created_at', '<', before)
      .orderBy('created_at')
      .limit(limit)
      .execute();
  },

  async removeStale(tx: Tx, organizationId: string, id: string): Promise<boolean> {
    const rows = await tx
      .deleteFrom('media')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .returning('id')
      .execute();
    return rows.length > 0;
  },
};

export type MediaRow = NonNullable<Awaited<ReturnType<typeof mediaRepository.get>>>;
