import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import type { Role } from '../../db/schema/index.ts';

/** What an owner sets for OIDC sign-in (decision 220); the client secret stays sealed. */
export interface SsoRow {
  organization_id: string;
  issuer: string;
  client_id: string;
  client_secret_sealed: string;
  email_claim: string;
  display_name: string;
  allowed_domains: string[];
  join_as_viewer: boolean;
  sso_only: boolean;
  updated_at: Date;
}

/**
 * OIDC sign-in: the organization's provider settings (tenant table, also read before an
 * organization is known, in system transactions), the sign-ins under way and the one-time codes
 * handed to the app (system tables).
 */
export const ssoRepository = {
  settings(tx: Tx, organizationId: string): Promise<SsoRow | undefined> {
    return tx
      .selectFrom('organization_sso')
      .select([
        'organization_id',
        'issuer',
        'client_id',
        'client_secret_sealed',
        'email_claim',
        'display_name',
        'allowed_domains',
        'join_as_viewer',
        'sso_only',
        'updated_at',
      ])
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
  },

  async save(tx: Tx, row: Omit<SsoRow, 'updated_at'>): Promise<void> {
    const { organization_id: _, ...changes } = row;
    await tx
      .insertInto('organization_sso')
      .values(row)
      .onConflict((oc) => oc.column('organization_id').doUpdateSet({ ...changes, updated_at: sql`now()` }))
      .execute();
  },

  async remove(tx: Tx, organizationId: string): Promise<boolean> {
    const rows = await tx
      .deleteFrom('organization_sso')
      .where('organization_id', '=', organizationId)
      .returning('organization_id')
      .execute();
    return rows.length > 0;
  },

  /** Of these organizations, those whose members may not sign in with a password, with their names. */
  ssoOnly(tx: Tx, organizationIds: string[]) {
    if (organizationIds.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('organization_sso')
      .select(['organization_id', 'display_name'])
      .where('organization_id', 'in', organizationIds)
      .where('sso_only', '=', true)
      .execute();
  },

  /** Records a sign-in under way; sign-ins that ended more than a day ago go at the same time. */
  async insertLogin(
    tx: Tx,
    row: {
      stateHash: string;
      organizationId: string;
      nonce: string;
      codeVerifier: string;
      ttlSeconds: number;
    },
  ): Promise<void> {
    await tx
      .deleteFrom('oidc_logins')
      .where('expires_at', '<', sql<Date>`now() - interval '1 day'`)
      .execute();
    await tx
      .insertInto('oidc_logins')
      .values({
        state_hash: row.stateHash,
        organization_id: row.organizationId,
        nonce: row.nonce,
        code_verifier: row.codeVerifier,
        expires_at: sql<Date>`now() + make_interval(secs => ${row.ttlSeconds})`,
      })
      .execute();
  },

  /**
   * Uses the sign-in of this state once: answers it as it was before (`used` and `live` say
   * whether it had been used, and whether it was still within its time) and marks it used.
   */
  async takeLogin(tx: Tx, stateHash: string) {
    const found = await tx
      .selectFrom('oidc_logins')
      .select([
        'organization_id',
        'nonce',
        'code_verifier',
        sql<boolean>`used_at is not null`.as('used'),
        sql<boolean>`expires_at > now()`.as('live'),
      ])
      .where('state_hash', '=', stateHash)
      .forUpdate()
      .executeTakeFirst();
    if (found && !found.used) {
      await tx
        .updateTable('oidc_logins')
        .set({ used_at: sql`now()` })
        .where('state_hash', '=', stateHash)
        .execute();
    }
    return found;
  },

  /** A person's membership of the organization, if any (pending or active). */
  membership(tx: Tx, organizationId: string, userId: string) {
    return tx
      .selectFrom('memberships')
      .select(['role', 'status'])
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .forUpdate()
      .executeTakeFirst();
  },

  async addMember(tx: Tx, organizationId: string, userId: string, role: Role): Promise<void> {
    await tx
      .insertInto('memberships')
      .values({ organization_id: organizationId, user_id: userId, role, status: 'active' })
      .execute();
  },

  /** The user with this e-mail (any letter case), created without a password if there is none. */
  async findOrCreateUser(tx: Tx, email: string, name: string) {
    await tx
      .insertInto('users')
      .values({ email, name, image: null, password_hash: null })
      .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
      .execute();
    return tx
      .selectFrom('users')
      .select(['id', 'email', 'name'])
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .executeTakeFirstOrThrow();
  },

  async setNameIfBlank(tx: Tx, userId: string, name: string): Promise<void> {
    await tx.updateTable('users').set({ name }).where('id', '=', userId).where('name', '=', '').execute();
  },

  async insertHandoff(
    tx: Tx,
    row: { codeHash: string; organizationId: string; userId: string; ttlSeconds: number },
  ): Promise<void> {
    await tx
      .deleteFrom('oidc_handoffs')
      .where('expires_at', '<', sql<Date>`now() - interval '1 day'`)
      .execute();
    await tx
      .insertInto('oidc_handoffs')
      .values({
        code_hash: row.codeHash,
        organization_id: row.organizationId,
        user_id: row.userId,
        expires_at: sql<Date>`now() + make_interval(secs => ${row.ttlSeconds})`,
      })
      .execute();
  },

  /** Uses a live, unused one-time code; answers whose it is, or undefined. */
  takeHandoff(tx: Tx, codeHash: string) {
    return tx
      .updateTable('oidc_handoffs')
      .set({ used_at: sql`now()` })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .returning(['organization_id', 'user_id'])
      .executeTakeFirst();
  },
};
