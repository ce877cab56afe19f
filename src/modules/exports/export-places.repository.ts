import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

/** What a request for a place found: the caller's and the organization's live places, and the one taken. */
export interface PlaceClaim {
  mine: number;
  ours: number;
  /** The place taken, when both counts were below their caps. */
  id?: string;
}

/**
 * Takes a place for an export of `caller` in the organization of `tx` when fewer than `perCaller`
 * of the caller's and `perOrganization` of the organization's live places exist (decision 204).
 * The organization's advisory lock (held to the end of `tx`) makes the count and the insert one
 * step for parallel requests of any process; places whose lease ran out, and those this process
 * has given back but not yet deleted (`released`), are not counted.
 */
export async function claimExportPlace(
  tx: Tx,
  organizationId: string,
  caller: string,
  limits: { perCaller: number; perOrganization: number; leaseSeconds: number },
  released: readonly string[],
): Promise<PlaceClaim> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`export-places:${organizationId}`}, 0))`.execute(
    tx,
  );
  const counts = await sql<{ mine: number; ours: number }>`
    select count(*) filter (where caller = ${caller})::int as mine, count(*)::int as ours
      from export_places
     where organization_id = ${organizationId} and expires_at > now()
       and id <> all(${[...released]}::uuid[])`.execute(tx);
  const { mine, ours } = counts.rows[0]!;
  if (mine >= limits.perCaller || ours >= limits.perOrganization) return { mine, ours };
  const taken = await sql<{ id: string }>`
    insert into export_places (organization_id, caller, expires_at)
    values (${organizationId}, ${caller}, now() + make_interval(secs => ${limits.leaseSeconds}))
    returning id`.execute(tx);
  // Places whose lease ran out long ago go (a process that stopped without giving them back).
  await sql`delete from export_places
             where organization_id = ${organizationId} and expires_at < now() - interval '1 hour'`.execute(
    tx,
  );
  return { mine, ours, id: taken.rows[0]!.id };
}

/** Extends the leases of `ids` (places of exports still running). */
export async function renewExportPlaces(tx: Tx, ids: readonly string[], leaseSeconds: number): Promise<void> {
  await sql`update export_places set expires_at = now() + make_interval(secs => ${leaseSeconds})
             where id = any(${[...ids]}::uuid[])`.execute(tx);
}

/** Gives places back. */
export async function releaseExportPlaces(tx: Tx, ids: readonly string[]): Promise<void> {
  await sql`delete from export_places where id = any(${[...ids]}::uuid[])`.execute(tx);
}
