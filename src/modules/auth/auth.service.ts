import type { Config } from '../../config.ts';
import type { Database, Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import type { Clock } from '../../domain/clock.ts';
import { AppError, badRequest, coded, forbidden, notFound } from '../../domain/errors.ts';
import type { IssueCode } from '../../domain/issue-codes.ts';
import { iso } from '../../domain/time.ts';
import type { CredentialResolver } from '../../http/auth.ts';
import { supportedLocale } from '../../lib/locales.ts';
import { hashPassword, isAccessToken, newAccessToken, sha256Hex } from '../../lib/secrets.ts';
import { createOrganizationWithOwner } from '../organizations/index.ts';
import { users } from '../users/index.ts';
import { checkAccountPassword, type PasswordCheckDeps } from './account-password.ts';
import {
  activeMemberships,
  type CredentialRow,
  credentialOpeningQuery,
  findAccessToken,
  findApiKey,
  insertAccessToken,
  organizationAndAssignedSites,
  revokeAccessToken,
  touchApiKey,
} from './auth.repository.ts';
import { ssoRepository } from './sso.repository.ts';
import { ssoOnlyRefusal } from './sso.settings.ts';

/** A sign-in refusal (401) whose one issue carries its code (decision 225). */
const signInRefusal = (code: IssueCode, message: string) =>
  new AppError('UNAUTHORIZED', message, [coded(code, message)]);

/**
 * Resolves a bearer value (access token or API key) to the caller, or null if unknown. An API
 * key's last use (the database's now()) is not written again while the clock says the stored one
 * is under a minute old.
 */
export function credentialResolver(database: Database, config: Config, clock: Clock): CredentialResolver {
  const toCaller = (row: CredentialRow, kind: 'token' | 'apikey'): Caller => ({
    userId: row.user_id,
    organizationId: row.organization_id,
    role: row.role,
    isAdmin: config.adminEmails.has(row.email.toLowerCase()),
    email: row.email,
    name: row.name,
    image: row.image,
    credential: { kind, id: row.id },
  });
  const staleAfterMs = 60_000;
  const stale = (row: CredentialRow) =>
    !row.last_used_at || clock().getTime() - new Date(row.last_used_at).getTime() > staleAfterMs;
  return {
    lookup(bearer) {
      const hash = sha256Hex(bearer);
      return database.unscoped(async (tx) => {
        if (isAccessToken(bearer)) {
          const row = await findAccessToken(tx, hash);
          return row ? toCaller(row, 'token') : null;
        }
        const row = await findApiKey(tx, hash);
        if (!row) return null;
        if (stale(row)) await touchApiKey(tx, row.id);
        return toCaller(row, 'apikey');
      });
    },
    async open(bearer) {
      const kind = isAccessToken(bearer) ? 'token' : 'apikey';
      const transaction = await database.begin<CredentialRow>(
        credentialOpeningQuery(kind, sha256Hex(bearer)),
      );
      const row = transaction.rows[0];
      if (!row) {
        await transaction.end();
        return null;
      }
      return { caller: toCaller(row, kind), transaction };
    },
  };
}

/** Issues an access token for a member of an organization, valid for the configured time from the clock's now. */
export async function issueAccessToken(
  tx: Tx,
  config: Config,
  clock: Clock,
  organizationId: string,
  userId: string,
) {
  const accessToken = newAccessToken();
  const expiresAt = new Date(clock().getTime() + config.tokenTtlSeconds * 1000);
  await insertAccessToken(tx, { organizationId, userId, tokenHash: sha256Hex(accessToken), expiresAt });
  return { accessToken, expiresAt: iso(expiresAt) };
}

export interface SignupInput {
  organizationName: string;
  name: string;
  email: string;
  password: string;
}

export async function signup(database: Database, config: Config, clock: Clock, input: SignupInput) {
  if (!config.allowSignup) throw forbidden('Sign-up is disabled on this server (SDCS_ALLOW_SIGNUP)');
  const passwordHash = await hashPassword(input.password);
  return database.system(async (tx) => {
    const { organization, user } = await createOrganizationWithOwner(tx, {
      organizationName: input.organizationName,
      email: input.email,
      name: input.name,
      passwordHash,
      reuseExistingUser: false,
    });
    const token = await issueAccessToken(tx, config, clock, organization.id, user.id);
    return {
      organization: { id: organization.id, name: organization.name, createdAt: iso(organization.created_at) },
      user: { id: user.id, email: user.email, name: user.name },
      ...token,
    };
  });
}

/** What a login needs besides the database: the account budget, the clock and the mailer. */
export type LoginDeps = PasswordCheckDeps;

/**
 * Signs in with e-mail and password. The attempt is counted on the account's budget (across
 * client addresses) before the password is checked; past the budget it waits (429, decision 154).
 * A right password gives its attempt back; the wrong one that spends the budget tells the owner.
 */
export async function login(
  database: Database,
  config: Config,
  deps: LoginDeps,
  input: { email: string; password: string; organizationId?: string },
) {
  const user = await database.system((tx) => users.findByEmail(tx, input.email));
  const account = user ? { email: user.email, passwordHash: user.password_hash } : undefined;
  // Checked (and counted) for an unknown e-mail too: as slow, and as limited, as a known one.
  const ok = await checkAccountPassword(deps, input.email, account, input.password);
  if (!user || !ok) throw signInRefusal('signin.invalidCredentials', 'Invalid e-mail or password');
  return database.system(async (tx) => {
    const all = await activeMemberships(tx, user.id);
    // Organizations whose members sign in with their identity provider only are not opened by a
    // password; the person's other organizations are (decision 220).
    const closed = await ssoRepository.ssoOnly(
      tx,
      all.map((m) => m.organization_id),
    );
    const closedIn = new Map(closed.map((c) => [c.organization_id, c.display_name]));
    const memberships = all.filter((m) => !closedIn.has(m.organization_id));
    const wanted = input.organizationId ?? (memberships.length === 0 ? all[0]?.organization_id : undefined);
    const refusal = wanted === undefined ? undefined : closedIn.get(wanted);
    if (refusal !== undefined) throw ssoOnlyRefusal(refusal);
    const membership = input.organizationId
      ? memberships.find((m) => m.organization_id === input.organizationId)
      : memberships[0];
    if (!membership) {
      throw input.organizationId
        ? badRequest('You are not a member of that organization', [
            { message: 'not an organization you belong to', path: 'organizationId' },
          ])
        : signInRefusal('signin.noMembership', 'This account has no active membership');
    }
    const token = await issueAccessToken(tx, config, deps.clock, membership.organization_id, user.id);
    return {
      ...token,
      organizationId: membership.organization_id,
      organizations: memberships.map((m) => ({
        id: m.organization_id,
        name: m.organization_name,
        role: m.role,
      })),
    };
  });
}

export async function logout(database: Database, caller: Caller): Promise<void> {
  if (caller.credential.kind !== 'token') {
    throw new AppError(
      'BAD_REQUEST',
      'Logout ends access tokens; revoke an API key with DELETE /apikeys/{id}',
    );
  }
  await database.tenant(caller.organizationId, (tx) => revokeAccessToken(tx, caller.credential.id));
}

/** What `GET /me` tells the caller about themselves. */
export async function describeCaller(tx: Tx, caller: Caller) {
  const found = await organizationAndAssignedSites(tx, caller.organizationId, caller.userId);
  if (!found) throw notFound('Organization');
  const locale = supportedLocale(found.locale);
  return {
    user: { id: caller.userId, email: caller.email, name: caller.name, image: caller.image, locale },
    organization: { id: found.id, name: found.name },
    role: caller.role,
    isAdmin: caller.isAdmin,
    credential: caller.credential.kind,
    siteIds: found.site_ids,
  };
}

/** Sets the caller's language (null: follow the browser); answers the caller as GET /me does. */
export async function setCallerLocale(tx: Tx, caller: Caller, locale: string | null) {
  await users.setLocale(tx, caller.userId, supportedLocale(locale));
  return describeCaller(tx, caller);
}
