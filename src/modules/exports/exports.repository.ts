import { type QueryResult, type RawBuilder, sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

/** The media of an audit pack's evidence (`ids`), by id, in the caller's organization. */
export function evidenceMedia(tx: Tx, organizationId: string, ids: readonly string[]) {
  return tx
    .selectFrom('media')
    .select(['id', 'key', 'file_name'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .orderBy('id')
    .execute();
}

/** Declares the cursor a streamed export reads on PostgreSQL, for `statement` (in `tx`). */
export async function declareExportCursor(tx: Tx, statement: RawBuilder<unknown>): Promise<void> {
  await sql`declare sdcs_export no scroll cursor for ${statement}`.execute(tx);
}

/** The next `size` rows of the export's cursor (not awaited here: the caller decides when). */
export function fetchExportCursor<R>(tx: Tx, size: number): Promise<QueryResult<R>> {
  return sql.raw<R>(`fetch forward ${size} from sdcs_export`).execute(tx);
}

/** Closes the export's cursor. */
export async function closeExportCursor(tx: Tx): Promise<void> {
  await sql`close sdcs_export`.execute(tx);
}

/** The database's time (an export's start). */
export async function databaseNow(tx: Tx): Promise<Date> {
  const head = await sql<{ now: Date }>`select now() as now`.execute(tx);
  return head.rows[0]!.now;
}

/** Every site of the organization, with its parent (an export names a site by its path). */
export function organizationSites(tx: Tx, organizationId: string) {
  return tx
    .selectFrom('sites')
    .select(['id', 'parent_id', 'name', 'code'])
    .where('organization_id', '=', organizationId)
    .execute();
}

/** The form `formId` of the organization if it exists and is not deleted. */
export function liveForm(tx: Tx, organizationId: string, formId: string) {
  return tx
    .selectFrom('forms')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', '=', formId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}
