import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

/** Grants, one-time codes and attempt counters of public dashboards; every method takes the organization id. */
export const dashboardAccessRepository = {
  async insertGrant(
    tx: Tx,
    organizationId: string,
    g: { dashboardId: string; tokenHash: string; email: string | null; gateVersion: number; expiresAt: Date },
  ): Promise<void> {
    await tx
      .insertInto('dashboard_grants')
      .values({
        organization_id: organizationId,
        dashboard_id: g.dashboardId,
        token_hash: g.tokenHash,
        email: g.email,
        gate_version: g.gateVersion,
        expires_at: g.expiresAt,
      })
      .execute();
  },

  findGrant(tx: Tx, organizationId: string, dashboardId: string, tokenHash: string) {
    return tx
      .selectFrom('dashboard_grants')
      .select(['id', 'gate_version', 'expires_at'])
      .where('organization_id', '=', organizationId)
      .where('dashboard_id', '=', dashboardId)
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
  },

  async insertCode(
    tx: Tx,
    organizationId: string,
    c: { dashboardId: string; email: string; codeHash: string; gateVersion: number; expiresAt: Date },
  ): Promise<void> {
    await tx
      .insertInto('dashboard_access_codes')
      .values({
        organization_id: organizationId,
        dashboard_id: c.dashboardId,
        email: c.email,
        code_hash: c.codeHash,
        gate_version: c.gateVersion,
        expires_at: c.expiresAt,
      })
      .execute();
  },

  /** The unused, unexpired codes of an address (newest first). */
  liveCodes(tx: Tx, organizationId: string, dashboardId: string, email: string, now: Date) {
    return tx
      .selectFrom('dashboard_access_codes')
      .select(['id', 'code_hash', 'gate_version'])
      .where('organization_id', '=', organizationId)
      .where('dashboard_id', '=', dashboardId)
      .where('email', '=', email)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .limit(10)
      .execute();
  },

  /** Marks a code used; false when another request used it first. */
  async useCode(tx: Tx, organizationId: string, id: string, now: Date): Promise<boolean> {
    const done = await tx
      .updateTable('dashboard_access_codes')
      .set({ used_at: now })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  },

  attempts(tx: Tx, organizationId: string, dashboardId: string, client: string) {
    return tx
      .selectFrom('dashboard_access_attempts')
      .select(['window_started_at', 'attempts'])
      .where('organization_id', '=', organizationId)
      .where('dashboard_id', '=', dashboardId)
      .where('client', '=', client)
      .executeTakeFirst();
  },

  /**
   * Counts one attempt in the pair's window (a window older than `windowStart` starts again at 1)
   * and answers the count with the window's start. One statement: parallel attempts are counted
   * one after the other by the row's lock, each seeing its own count (decision 154).
   */
  async countAttempt(
    tx: Tx,
    organizationId: string,
    dashboardId: string,
    client: string,
    now: Date,
    windowStart: Date,
  ): Promise<{ attempts: number; windowStartedAt: Date }> {
    const row = await tx
      .insertInto('dashboard_access_attempts')
      .values({
        organization_id: organizationId,
        dashboard_id: dashboardId,
        client,
        window_started_at: now,
        attempts: 1,
      })
      .onConflict((oc) =>
        oc.columns(['dashboard_id', 'client']).doUpdateSet((eb) => ({
          attempts: eb
            .case()
            .when('dashboard_access_attempts.window_started_at', '<=', windowStart)
            .then(1)
            .else(eb('dashboard_access_attempts.attempts', '+', 1))
            .end(),
          window_started_at: eb
            .case()
            .when('dashboard_access_attempts.window_started_at', '<=', windowStart)
            .then(now)
            .else(eb.ref('dashboard_access_attempts.window_started_at'))
            .end(),
        })),
      )
      .returning(['attempts', 'window_started_at'])
      .executeTakeFirstOrThrow();
    return { attempts: Number(row.attempts), windowStartedAt: new Date(row.window_started_at) };
  },

  /** The e-mail addresses of the organization's active owners (who hear of a spent attempt budget). */
  async ownerAddresses(tx: Tx, organizationId: string): Promise<string[]> {
    const rows = await tx
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select('u.email')
      .where('m.organization_id', '=', organizationId)
      .where('m.role', '=', 'OWNER')
      .where('m.status', '=', 'active')
      .orderBy('u.email')
      .execute();
    return rows.map((r) => r.email);
  },

  async clearAttempts(tx: Tx, organizationId: string, dashboardId: string, client: string): Promise<void> {
    await tx
      .deleteFrom('dashboard_access_attempts')
      .where('organization_id', '=', organizationId)
      .where('dashboard_id', '=', dashboardId)
      .where('client', '=', client)
      .execute();
  },

  /**
   * Serializes the code steps of one address on one dashboard until the transaction ends, so
   * parallel guesses are counted one after the other.
   */
  async lockAddress(tx: Tx, dashboardId: string, email: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`sdcs-dashboard-code:${dashboardId}:${email}`}, 0))`.execute(
      tx,
    );
  },

  /** Voids the address's live codes (they expire now): a new code replaces them, or the cap was reached. */
  async voidCodes(
    tx: Tx,
    organizationId: string,
    dashboardId: string,
    email: string,
    now: Date,
  ): Promise<void> {
    await tx
      .updateTable('dashboard_access_codes')
      .set({ expires_at: now })
      .where('organization_id', '=', organizationId)
      .where('dashboard_id', '=', dashboardId)
      .where('email', '=', email)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .execute();
  },

  /** Counts a wrong guess on the address's live codes and voids those that reach `max` guesses. */
  async failCodes(
    tx: Tx,
    organizationId: string,
    dashboardId: string,
    email: string,
    now: Date,
    max: number,
  ): Promise<void> {
    await tx
      .updateTable('dashboard_access_codes')
      .set((eb) => ({
        failures: eb('failures', '+', 1),
        expires_at: eb
          .case()
          .when('failures', '>=', max - 1)
          .then(now)
          .else(eb.ref('expires_at'))
          .end(),
      }))
      .where('organization_id', '=', organizationId)
      .where('dashboard_id', '=', dashboardId)
      .where('email', '=', email)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .execute();
  },
};
