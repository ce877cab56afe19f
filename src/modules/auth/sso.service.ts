import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Database, Tx } from '../../db/client.ts';
import type { Clock } from '../../domain/clock.ts';
import { badRequest, notFound } from '../../domain/errors.ts';
import { randomBase62, sha256Hex } from '../../lib/secrets.ts';
import { users } from '../users/index.ts';
import { issueAccessToken } from './auth.service.ts';
import {
  authorizationUrl,
  newChecks,
  providerConfiguration,
  redeemCode,
  type SsoFailure,
  SsoRefusal,
} from './sso.provider.ts';
import { ssoRepository as repo, type SsoRow } from './sso.repository.ts';
import { openClientSecret } from './sso.settings.ts';

/** Where the flow sends the browser: the provider's callback and the app's sign-in screen. */
export interface SsoDeps {
  database: Database;
  config: Config;
  log: FastifyBaseLogger;
  /** `<PUBLIC_URL>/api/v1/auth/oidc/callback`: the redirect URI registered at the provider. */
  callbackUrl: string;
  /** `<PUBLIC_URL>/app/sign-in`. */
  signInUrl: string;
  /** The start address of an organization's sign-in. */
  startUrl: (organizationId: string) => string;
  /** Accepts an invited person's live invitation (the invitations module's, through the services). */
  acceptInvitation: (tx: Tx, organizationId: string, userId: string) => Promise<boolean>;
}

/** How long the one-time code handed to the app lives. */
const HANDOFF_TTL_SECONDS = 120;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function settingsOf(database: Database, organizationId: string): Promise<SsoRow> {
  const found = UUID.test(organizationId)
    ? await database.system((tx) => repo.settings(tx, organizationId))
    : undefined;
  if (!found) throw notFound('Single sign-on for this organization');
  return found;
}

/** What the sign-in screen needs to offer "Sign in with <name>" (public). */
export async function describeSso(deps: SsoDeps, organizationId: string) {
  const found = await settingsOf(deps.database, organizationId);
  return {
    organizationId: found.organization_id,
    displayName: found.display_name,
    ssoOnly: found.sso_only,
    startUrl: deps.startUrl(found.organization_id),
  };
}

/**
 * Starts a sign-in: state, nonce and PKCE verifier are kept on the server (`oidc_logins`), and
 * the browser goes to the provider. Answers the address to go to; a provider that cannot be
 * reached sends the browser back to the sign-in screen with the reason.
 */
export async function startSignIn(deps: SsoDeps, organizationId: string): Promise<string> {
  const settings = await settingsOf(deps.database, organizationId);
  try {
    const configuration = await providerConfiguration(access(deps.config, settings), deps.config).catch(
      (error: unknown) => {
        throw new SsoRefusal('provider', `The identity provider could not be reached: ${String(error)}`);
      },
    );
    const checks = await newChecks();
    await deps.database.system((tx) =>
      repo.insertLogin(tx, {
        stateHash: sha256Hex(checks.state),
        organizationId: settings.organization_id,
        nonce: checks.nonce,
        codeVerifier: checks.codeVerifier,
        ttlSeconds: deps.config.oidcLoginTtlSeconds,
      }),
    );
    return authorizationUrl(configuration, { redirectUri: deps.callbackUrl, ...checks });
  } catch (error) {
    if (!(error instanceof SsoRefusal)) throw error;
    return failed(deps, new SsoRefusal(error.reason, error.message, settings.organization_id));
  }
}

export interface CallbackParams {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

/**
 * The provider's redirect back: the state is used once (a replay finds it used), the code is
 * redeemed with the verifier and the ID token verified, the e-mail claim read and checked
 * against the allowed domains, the person found (or let in), and a one-time code handed to the
 * app in the address's fragment. Always answers where the browser goes next.
 */
export async function finishSignIn(deps: SsoDeps, query: CallbackParams, currentUrl: URL): Promise<string> {
  let organizationId: string | undefined;
  try {
    const state = query.state ?? '';
    const login = state
      ? await deps.database.system((tx) => repo.takeLogin(tx, sha256Hex(state)))
      : undefined;
    organizationId = login?.organization_id;
    if (!login || login.used || !login.live) {
      throw new SsoRefusal(
        'state',
        !login
          ? 'Unknown sign-in state: start the sign-in again'
          : login.used
            ? 'This sign-in was already completed once (a replayed state): start again'
            : 'The sign-in took too long: start again',
      );
    }
    if (query.error) {
      throw new SsoRefusal('cancelled', `The identity provider ended the sign-in: ${query.error}`);
    }
    const settings = await settingsOf(deps.database, login.organization_id);
    const configuration = await providerConfiguration(access(deps.config, settings), deps.config).catch(
      (error: unknown) => {
        throw new SsoRefusal('provider', `The identity provider could not be reached: ${String(error)}`);
      },
    );
    const claims = await redeemCode(
      configuration,
      currentUrl,
      {
        state,
        nonce: login.nonce,
        codeVerifier: login.code_verifier,
      },
      settings.email_claim,
    );
    const email = emailOf(claims, settings);
    const name = typeof claims['name'] === 'string' ? claims['name'].slice(0, 200) : '';
    const code = `sdcs_sso_${randomBase62(43)}`;
    // One system transaction (the handoff table is no tenant's): the person let in and the code.
    await deps.database.system(async (tx) => {
      const userId = await admit(tx, deps, settings, email, name);
      await repo.insertHandoff(tx, {
        codeHash: sha256Hex(code),
        organizationId: settings.organization_id,
        userId,
        ttlSeconds: HANDOFF_TTL_SECONDS,
      });
    });
    return `${deps.signInUrl}#sso=${code}`;
  } catch (error) {
    if (!(error instanceof SsoRefusal)) throw error;
    return failed(deps, new SsoRefusal(error.reason, error.message, organizationId));
  }
}

function failed(deps: SsoDeps, refusal: SsoRefusal): string {
  deps.log.warn({ reason: refusal.reason, organizationId: refusal.organizationId }, refusal.message);
  const org = refusal.organizationId ? `?org=${refusal.organizationId}` : '';
  return `${deps.signInUrl}${org}#ssoError=${refusal.reason satisfies SsoFailure}`;
}

function access(config: Config, settings: SsoRow) {
  return {
    issuer: settings.issuer,
    clientId: settings.client_id,
    clientSecret: openClientSecret(config, settings.client_secret_sealed),
  };
}

/** The e-mail address of the configured claim; one the provider says is unverified does not count. */
function emailOf(claims: Record<string, unknown>, settings: SsoRow): string {
  const value = claims[settings.email_claim];
  const email = typeof value === 'string' ? value.trim() : '';
  if (!/^[^@\s]+@[^@\s]+$/.test(email) || email.length > 320) {
    throw new SsoRefusal(
      'email',
      `The ID token has no e-mail address in its "${settings.email_claim}" claim`,
    );
  }
  if (settings.email_claim === 'email' && claims['email_verified'] === false) {
    throw new SsoRefusal('email', `The identity provider has not verified ${email}`);
  }
  const domain = email.split('@')[1]!.toLowerCase();
  if (settings.allowed_domains.length > 0 && !settings.allowed_domains.includes(domain)) {
    throw new SsoRefusal(
      'domain',
      `${email} is not an address of ${settings.allowed_domains.join(', ')}, the domains allowed to sign in`,
    );
  }
  return email;
}

/**
 * The person behind a verified e-mail, let into the organization: a member already; an invited
 * address, whose invitation this first sign-in accepts; anyone else only when the organization
 * lets others join (as a VIEWER of no site). Answers the user's id.
 */
async function admit(tx: Tx, deps: SsoDeps, settings: SsoRow, email: string, name: string): Promise<string> {
  const org = settings.organization_id;
  const existing = await users.findByEmail(tx, email);
  const membership = existing ? await repo.membership(tx, org, existing.id) : undefined;
  if (existing && membership?.status === 'active') return existing.id;
  if (existing && membership?.status === 'pending') {
    if (await deps.acceptInvitation(tx, org, existing.id)) {
      if (name) await repo.setNameIfBlank(tx, existing.id, name);
      return existing.id;
    }
    throw new SsoRefusal('not-invited', `The invitation of ${email} has expired: ask for a new one`);
  }
  if (!settings.join_as_viewer) {
    throw new SsoRefusal('not-invited', `${email} has not been invited to this organization`);
  }
  const user = await repo.findOrCreateUser(tx, email, name);
  await repo.addMember(tx, org, user.id, 'VIEWER');
  return user.id;
}

/** Exchanges the one-time code of a finished sign-in for the service's own access token. */
export async function exchangeCode(database: Database, config: Config, clock: Clock, code: string) {
  const found = await database.system((tx) => repo.takeHandoff(tx, sha256Hex(code)));
  if (!found) {
    throw badRequest('This sign-in code is not valid, was already used or has expired: sign in again');
  }
  const token = await database.tenant(found.organization_id, (tx) =>
    issueAccessToken(tx, config, clock, found.organization_id, found.user_id),
  );
  return { ...token, organizationId: found.organization_id };
}
