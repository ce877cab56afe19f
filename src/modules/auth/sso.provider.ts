import * as oidc from 'openid-client';
import type { Config } from '../../config.ts';

/** Where an organization's provider is and how SDCS is known to it. */
export interface ProviderAccess {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** Why a sign-in at the provider did not end in a verified identity (decision 220). */
export class SsoRefusal extends Error {
  constructor(
    readonly reason: SsoFailure,
    message: string,
    readonly organizationId?: string,
  ) {
    super(message);
  }
}

/**
 * The reasons the callback hands the app (`#ssoError=<reason>`), each shown there in the
 * person's language (`sso.error.<reason>`).
 */
export type SsoFailure =
  | 'state' // unknown, used or expired state: a replay, or a sign-in started too long ago
  | 'provider' // the provider could not be reached or answered with an error
  | 'cancelled' // the person (or the provider) ended the sign-in there
  | 'verify' // the ID token did not verify (signature, issuer, audience, nonce)
  | 'expired' // the ID token had expired
  | 'email' // no (verified) e-mail address in the ID token
  | 'domain' // the e-mail's domain is not one the organization allows
  | 'not-invited'; // not invited, and the organization does not let others join

/**
 * The provider's configuration, read from its discovery document, for the authorization-code
 * flow with a client secret (client_secret_basic). ID tokens are verified in full, signature
 * included (`enableNonRepudiationChecks`): the token endpoint's TLS alone would let an ID token
 * signed by another key through. Plain http only with SDCS_OIDC_ALLOW_HTTP.
 */
export async function providerConfiguration(access: ProviderAccess, config: Config) {
  const configuration = await oidc.discovery(
    new URL(access.issuer),
    access.clientId,
    undefined,
    oidc.ClientSecretBasic(access.clientSecret),
    {
      timeout: Math.ceil(config.oidcTimeoutMs / 1000),
      ...(config.oidcAllowHttp ? { execute: [oidc.allowInsecureRequests] } : {}),
    },
  );
  oidc.enableNonRepudiationChecks(configuration);
  return configuration;
}

/** The three secrets of one sign-in: state, nonce and the PKCE verifier (with its challenge). */
export async function newChecks() {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  return {
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    codeVerifier,
    codeChallenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
  };
}

export function authorizationUrl(
  configuration: oidc.Configuration,
  p: { redirectUri: string; state: string; nonce: string; codeChallenge: string },
): string {
  return oidc
    .buildAuthorizationUrl(configuration, {
      redirect_uri: p.redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      state: p.state,
      nonce: p.nonce,
      code_challenge: p.codeChallenge,
      code_challenge_method: 'S256',
    })
    .toString();
}

/**
 * Exchanges the authorization code (with the PKCE verifier) and verifies the ID token: signature,
 * issuer, audience, expiry, nonce, state. Answers its claims; a failure is an `SsoRefusal`.
 */
export async function redeemCode(
  configuration: oidc.Configuration,
  currentUrl: URL,
  checks: { state: string; nonce: string; codeVerifier: string },
  wantedClaim: string,
): Promise<Record<string, unknown>> {
  try {
    const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new SsoRefusal('verify', 'The identity provider answered without an ID token');
    if (claims[wantedClaim] !== undefined) return claims as Record<string, unknown>;
    // Providers may keep the profile claims out of the ID token: then the UserInfo endpoint,
    // for the same subject, has them.
    const info = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
    return { ...info, ...claims, [wantedClaim]: info[wantedClaim], email_verified: info['email_verified'] };
  } catch (error) {
    throw refusalOf(error);
  }
}

/** The library's error as one of the reasons, with its own words kept for the log. */
function refusalOf(error: unknown): SsoRefusal {
  if (error instanceof SsoRefusal) return error;
  type Failure = { code?: string; message?: string; cause?: Failure & { claim?: string } };
  const e = error as Failure;
  const message = e.message ?? String(error);
  // openid-client wraps oauth4webapi's error: the timestamp check is found along the causes.
  const chain: Failure[] = [];
  for (let at: Failure | undefined = e; at && chain.length < 5; at = at.cause) chain.push(at);
  const expired = chain.some(
    (c) => c.code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED' && ['exp', 'iat'].includes(c.cause?.claim ?? ''),
  );
  if (expired) {
    return new SsoRefusal('expired', `The identity provider's ID token has expired: ${message}`);
  }
  if (error instanceof oidc.AuthorizationResponseError) {
    return new SsoRefusal('cancelled', `The identity provider ended the sign-in: ${message}`);
  }
  if (e.code === 'OAUTH_RESPONSE_BODY_ERROR' || e.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM') {
    return new SsoRefusal('provider', `The identity provider refused the sign-in: ${message}`);
  }
  if (/fetch failed|ECONNREFUSED|timeout|aborted/i.test(message)) {
    return new SsoRefusal('provider', `The identity provider could not be reached: ${message}`);
  }
  return new SsoRefusal('verify', `The identity provider's answer did not verify: ${message}`);
}
