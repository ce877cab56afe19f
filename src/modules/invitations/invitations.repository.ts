import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

/** Invitation rows, and the users they create; tenant methods take the organization id. */
export const invitationsRepository = {
  /** The user with this e-mail (any letter case), created without a password if there is none. */
  async findOrCreateUser(tx: Tx, email: string) {
    await tx
      .insertInto('users')
      .values({ email, image: null, password_hash: null })
      .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
      .execute();
    return tx
      .selectFrom('users')
      .select(['id', 'email'])
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .executeTakeFirstOrThrow();
  },

  /** The member's invitation that is not yet accepted (expired or not), locked. */
  findOpen(tx: Tx, organizationId: string, userId: string) {
    return tx
      .selectFrom('invitations')
      .select(['id', 'expires_at', sql<boolean>`expires_at > now()`.as('live')])
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('accepted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
  },

  async deleteOpen(tx: Tx, organizationId: string, userId: string): Promise<void> {
    await tx
      .deleteFrom('invitations')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('accepted_at', 'is', null)
      .execute();
  },

  insert(
    tx: Tx,
    organizationId: string,
    row: { userId: string; email: string; tokenHash: string; invitedBy: string; ttlDays: number },
  ) {
    return tx
      .insertInto('invitations')
      .values({
        organization_id: organizationId,
        user_id: row.userId,
        email: row.email,
        token_hash: row.tokenHash,
        invited_by: row.invitedBy,
        expires_at: sql<Date>`now() + make_interval(days => ${row.ttlDays})`,
      })
      .returning(['id', 'expires_at'])
      .executeTakeFirstOrThrow();
  },

  /**
   * Finds an invitation by its token hash, before the organization is known (system
   * transaction), with what acceptance needs to know about the invitee.
   */
  findByTokenHash(tx: Tx, tokenHash: string) {
    return tx
      .selectFrom('invitations as i')
      .innerJoin('users as u', 'u.id', 'i.user_id')
      .innerJoin('organizations as o', 'o.id', 'i.organization_id')
      .select([
        'i.id',
        'i.organization_id',
        'i.user_id',
        'i.accepted_at',
        sql<boolean>`i.expires_at > now()`.as('live'),
        'u.password_hash',
        'u.email',
        'o.name as organization_name',
      ])
      .where('i.token_hash', '=', tokenHash)
      .executeTakeFirst();
  },

  /** What the acceptance page shows about an invitation: who invites whom, to what, as what. */
  describeByTokenHash(tx: Tx, tokenHash: string) {
    return tx
      .selectFrom('invitations as i')
      .innerJoin('users as u', 'u.id', 'i.user_id')
      .innerJoin('organizations as o', 'o.id', 'i.organization_id')
      .innerJoin('memberships as m', (j) =>
        j.onRef('m.organization_id', '=', 'i.organization_id').onRef('m.user_id', '=', 'i.user_id'),
      )
      .leftJoin('users as inviter', 'inviter.id', 'i.invited_by')
      .select([
        'i.email',
        'i.accepted_at',
        'i.expires_at',
        sql<boolean>`i.expires_at > now()`.as('live'),
        sql<boolean>`u.password_hash is not null`.as('has_account'),
        'o.name as organization_name',
        'm.role',
        'inviter.name as inviter_name',
      ])
      .where('i.token_hash', '=', tokenHash)
      .executeTakeFirst();
  },

  /** Marks a live invitation accepted; false when it was used or expired meanwhile. */
  async claim(tx: Tx, organizationId: string, id: string): Promise<boolean> {
    const rows = await tx
      .updateTable('invitations')
      .set({ accepted_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('accepted_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .returning('id')
      .execute();
    return rows.length > 0;
  },

  /** Marks the person's live invitation to the organization accepted; false when there is none. */
  async claimFor(tx: Tx, organizationId: string, userId: string): Promise<boolean> {
    const rows = await tx
      .updateTable('invitations')
      .set({ accepted_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('accepted_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .returning('id')
      .execute();
    return rows.length > 0;
  },

  async activateMembership(tx: Tx, organizationId: string, userId: string): Promise<void> {
    await tx
      .updateTable('memberships')
      .set({ status: 'active', updated_at: sql`now()` })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .execute();
  },

  /** Sets name and password of an account that has no password yet. */
  async setFirstCredentials(tx: Tx, userId: string, name: string, passwordHash: string): Promise<void> {
    await tx
      .updateTable('users')
      .set({ name, password_hash: passwordHash, updated_at: sql`now()` })
      .where('id', '=', userId)
      .where('password_hash', 'is', null)
      .execute();
  },

  organizationName(tx: Tx, organizationId: string) {
    return tx
      .selectFrom('organizations')
      .select('name')
      .where('id', '=', organizationId)
      .executeTakeFirstOrThrow();
  },
};
