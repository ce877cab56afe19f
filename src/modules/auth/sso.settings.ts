import type { Config } from '../../config.ts';
import type { Database, Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { badRequest, forbidden, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { openSecret, sealSecret } from '../../lib/secrets.ts';
import { ssoRepository as repo, type SsoRow } from './sso.repository.ts';

const PURPOSE = 'oidc client secret';

export const sealClientSecret = (config: Config, secret: string) =>
  sealSecret(config.secret, PURPOSE, secret);

export function openClientSecret(config: Config, sealed: string): string {
  try {
    return openSecret(config.secret, PURPOSE, sealed);
  } catch {
    // Sealed under another SDCS_SECRET: the owner must enter it again.
    throw badRequest(
      'The stored client secret cannot be read (SDCS_SECRET changed): an owner must enter it again',
    );
  }
}

/** Where the settings' addresses point: the callback to register, and the app's sign-in. */
export interface SsoAddresses {
  callbackUrl: string;
  signInUrl: string;
}

export interface SsoSettingsInput {
  issuer: string;
  clientId: string;
  clientSecret?: string | undefined;
  emailClaim?: string | undefined;
  displayName: string;
  allowedDomains?: string[] | undefined;
  joinAsViewer?: boolean | undefined;
  ssoOnly?: boolean | undefined;
}

function present(row: SsoRow, addresses: SsoAddresses) {
  return {
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecretSet: true,
    emailClaim: row.email_claim,
    displayName: row.display_name,
    allowedDomains: row.allowed_domains,
    joinAsViewer: row.join_as_viewer,
    ssoOnly: row.sso_only,
    redirectUri: addresses.callbackUrl,
    signInUrl: `${addresses.signInUrl}?org=${row.organization_id}`,
    updatedAt: iso(row.updated_at),
  };
}

export async function getSsoSettings(tx: Tx, caller: Caller, addresses: SsoAddresses) {
  const row = await repo.settings(tx, caller.organizationId);
  if (!row) throw notFound('Single sign-on settings');
  return present(row, addresses);
}

/** The issuer as an absolute https URL (http only with SDCS_OIDC_ALLOW_HTTP), without query or fragment. */
function checkIssuer(config: Config, issuer: string): string {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw badRequest('The issuer must be a URL such as https://login.example.com', [
      { path: 'issuer', message: 'not a URL' },
    ]);
  }
  const allowed = config.oidcAllowHttp ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw badRequest('The issuer must be an https address without query, fragment or credentials', [
      {
        path: 'issuer',
        message: `must be https${config.oidcAllowHttp ? ' or http' : ''}, without ?, # or user`,
      },
    ]);
  }
  return issuer;
}

/**
 * Sets the organization's provider (owners). The client secret is needed the first time and kept
 * sealed; left out later, the stored one stays. The provider is not contacted here: a wrong
 * issuer shows at the first sign-in (and in the service's log).
 */
export async function putSsoSettings(
  tx: Tx,
  caller: Caller,
  config: Config,
  addresses: SsoAddresses,
  input: SsoSettingsInput,
) {
  const org = caller.organizationId;
  const issuer = checkIssuer(config, input.issuer.trim());
  const current = await repo.settings(tx, org);
  if (!input.clientSecret && !current) {
    throw badRequest('Enter the client secret the identity provider gave you', [
      { path: 'clientSecret', message: 'required the first time' },
    ]);
  }
  const displayName = input.displayName.trim();
  if (displayName === '') {
    throw badRequest('Choose the name shown on the sign-in button', [
      { path: 'displayName', message: 'must not be blank' },
    ]);
  }
  await repo.save(tx, {
    organization_id: org,
    issuer,
    client_id: input.clientId.trim(),
    client_secret_sealed: input.clientSecret
      ? sealClientSecret(config, input.clientSecret)
      : current!.client_secret_sealed,
    email_claim: input.emailClaim ?? 'email',
    display_name: displayName,
    allowed_domains: [...new Set((input.allowedDomains ?? []).map((d) => d.toLowerCase()))].sort(),
    join_as_viewer: input.joinAsViewer ?? false,
    sso_only: input.ssoOnly ?? false,
  });
  return present((await repo.settings(tx, org))!, addresses);
}

/** Removes the organization's provider: passwords open it again (owners). */
export async function deleteSsoSettings(tx: Tx, caller: Caller): Promise<void> {
  if (!(await repo.remove(tx, caller.organizationId))) throw notFound('Single sign-on settings');
}

/**
 * The refusal for a password into an organization whose members sign in with its provider only
 * (decision 220), or null when passwords open it.
 */
export async function passwordRefusal(database: Database, organizationId: string) {
  const closed = await database.system((tx) => repo.ssoOnly(tx, [organizationId]));
  return closed[0] ? ssoOnlyRefusal(closed[0].display_name) : null;
}

export const ssoOnlyRefusal = (displayName: string) =>
  forbidden(`This organization signs in with its identity provider only: use “Sign in with ${displayName}”`);
