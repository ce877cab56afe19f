import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { Role } from '../../db/schema/index.ts';

/** Memberships and site assignments of one organization; every method takes the organization id. */
export const membersRepository = {
  /** Members with their directly assigned sites (and, when pending, their invitation's expiry). */
  list(tx: Tx, organizationId: string, userId?: string) {
    let query = tx
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select((eb) => [
        'm.user_id',
        'u.email',
        'u.name',
        'm.role',
        'm.status',
        'm.created_at',
        eb
          .selectFrom('membership_sites as ms')
          .select(sql<string[]>`coalesce(array_agg(ms.site_id::text order by ms.site_id), '{}')`.as('ids'))
          .whereRef('ms.organization_id', '=', 'm.organization_id')
          .whereRef('ms.user_id', '=', 'm.user_id')
          .as('site_ids'),
        eb
          .selectFrom('invitations as i')
          .select((ib) => ib.fn.max('i.expires_at').as('expires'))
          .whereRef('i.organization_id', '=', 'm.organization_id')
          .whereRef('i.user_id', '=', 'm.user_id')
          .where('i.accepted_at', 'is', null)
          .as('invitation_expires_at'),
      ])
      .where('m.organization_id', '=', organizationId);
    if (userId) query = query.where('m.user_id', '=', userId);
    return query.orderBy('m.created_at').orderBy('u.email').execute();
  },

  /**
   * Serializes changes to the organization's memberships until the transaction ends, so that
   * concurrent changes (two owners demoting each other) cannot both pass the owner check, and
   * cannot deadlock on each other's rows either.
   */
  async lockMemberships(tx: Tx, organizationId: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`sdcs-memberships:${organizationId}`}, 0))`.execute(
      tx,
    );
  },

  /** One membership, locked until the end of the transaction. */
  lock(tx: Tx, organizationId: string, userId: string) {
    return tx
      .selectFrom('memberships')
      .select(['user_id', 'role', 'status'])
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .forUpdate()
      .executeTakeFirst();
  },

  /** The active owners (read after `lockMemberships`, so the answer holds until commit). */
  async activeOwners(tx: Tx, organizationId: string): Promise<string[]> {
    const rows = await tx
      .selectFrom('memberships')
      .select('user_id')
      .where('organization_id', '=', organizationId)
      .where('role', '=', 'OWNER')
      .where('status', '=', 'active')
      .execute();
    return rows.map((r) => r.user_id);
  },

  async siteIdsOf(tx: Tx, organizationId: string, userId: string): Promise<string[]> {
    const rows = await tx
      .selectFrom('membership_sites')
      .select('site_id')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .execute();
    return rows.map((r) => r.site_id);
  },

  async insert(
    tx: Tx,
    organizationId: string,
    row: { userId: string; role: Role; status: 'active' | 'pending' },
  ) {
    await tx
      .insertInto('memberships')
      .values({ organization_id: organizationId, user_id: row.userId, role: row.role, status: row.status })
      .execute();
  },

  async setRole(tx: Tx, organizationId: string, userId: string, role: Role): Promise<void> {
    await tx
      .updateTable('memberships')
      .set({ role, updated_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .execute();
  },

  /** Makes the member's assigned sites exactly `siteIds` (two statements, whatever the count). */
  async replaceSites(tx: Tx, organizationId: string, userId: string, siteIds: string[]): Promise<void> {
    await tx
      .deleteFrom('membership_sites')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .execute();
    if (siteIds.length === 0) return;
    await tx
      .insertInto('membership_sites')
      .values(
        siteIds.map((siteId) => ({ organization_id: organizationId, user_id: userId, site_id: siteId })),
      )
      .execute();
  },

  /**
   * Removes a membership (its site assignments and invitations go with it) and revokes the
   * member's access tokens and API keys in this organization, so that nothing they held works
   * again, even if they are invited back later.
   */
  async remove(tx: Tx, organizationId: string, userId: string): Promise<void> {
    await tx
      .updateTable('access_tokens')
      .set({ revoked_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
    await tx
      .updateTable('api_keys')
      .set({ revoked_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
    await tx
      .deleteFrom('memberships')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .execute();
  },
};
