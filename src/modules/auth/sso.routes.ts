import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import {
  CallbackQuery,
  ExchangeBody,
  ExchangeResponse,
  OrganizationParams,
  redirectAnswer,
  SsoPublic,
  SsoSettings,
  SsoSettingsBody,
} from './sso.schemas.ts';
import { describeSso, exchangeCode, finishSignIn, type SsoDeps, startSignIn } from './sso.service.ts';
import { deleteSsoSettings, getSsoSettings, putSsoSettings } from './sso.settings.ts';

const TAGS = ['Identity'];

/** OIDC sign-in (decision 220): the owners' settings and the browser's flow through the provider. */
export const ssoRoutes: FastifyPluginAsyncTypebox<Services> = async (
  app,
  { database, config, clock, acceptInvitation },
) => {
  const api = `${config.publicUrl}${app.prefix}`;
  const addresses = {
    callbackUrl: `${api}/auth/oidc/callback`,
    signInUrl: `${config.publicUrl}/app/sign-in`,
  };
  const deps = (log: SsoDeps['log']): SsoDeps => ({
    database,
    config,
    log,
    ...addresses,
    startUrl: (organizationId) => `${api}/auth/oidc/${organizationId}/start`,
    acceptInvitation,
  });

  app.get(
    '/organizations/current/sso',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'sso.getSettings',
        tags: TAGS,
        summary: 'The organization’s single sign-on (OIDC) settings (owners)',
        description: 'The client secret is never answered. 404 when none is set.',
        response: { 200: SsoSettings, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getSsoSettings(tx, caller, addresses)),
  );

  app.put(
    '/organizations/current/sso',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'sso.putSettings',
        tags: TAGS,
        summary: 'Set the organization’s identity provider for single sign-on (owners)',
        description:
          'Register `redirectUri` (answered) at the provider as the client’s redirect URI, and hand members `signInUrl`: the app’s sign-in then offers “Sign in with <displayName>”. The client secret is required the first time; left out later, the stored one stays. The provider is not contacted here. `ssoOnly` refuses password sign-in to this organization (API keys keep working).',
        body: SsoSettingsBody,
        response: { 200: SsoSettings, ...errors(400, 401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => putSsoSettings(tx, caller, config, addresses, request.body)),
  );

  app.delete(
    '/organizations/current/sso',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'sso.deleteSettings',
        tags: TAGS,
        summary: 'Turn single sign-on off: members sign in with passwords again (owners)',
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      await request.tenant((tx, caller) => deleteSsoSettings(tx, caller));
      return { success: true };
    },
  );

  app.get(
    '/auth/oidc/:organizationId',
    {
      config: { public: true },
      schema: {
        operationId: 'sso.describe',
        tags: TAGS,
        summary: 'Whether an organization offers single sign-on, and the button’s name',
        description:
          'For the sign-in screen (`/app/sign-in?org=<organizationId>`). 404 when the organization has no provider (or does not exist).',
        security: [],
        params: OrganizationParams,
        response: { 200: SsoPublic, ...errors(404) },
      },
    },
    (request) => describeSso(deps(request.log), request.params.organizationId),
  );

  app.get(
    '/auth/oidc/:organizationId/start',
    {
      config: { public: true },
      schema: {
        operationId: 'sso.start',
        tags: TAGS,
        summary: 'Start signing in with the organization’s identity provider (browser)',
        description:
          'Redirects (303) to the provider’s authorization endpoint: the authorization-code flow with PKCE (S256), state and nonce, all kept on the server for SDCS_OIDC_LOGIN_TTL_SECONDS and used once. A provider that cannot be reached redirects back to `/app/sign-in?org=<id>#ssoError=provider`.',
        security: [],
        params: OrganizationParams,
        response: {
          303: redirectAnswer('To the identity provider, or back to the sign-in screen with the reason'),
          ...errors(404),
        },
      },
    },
    async (request, reply) =>
      reply.redirect(await startSignIn(deps(request.log), request.params.organizationId), 303),
  );

  app.get(
    '/auth/oidc/callback',
    {
      config: { public: true },
      schema: {
        operationId: 'sso.callback',
        tags: TAGS,
        summary: 'Where the identity provider sends the browser back (the redirect URI)',
        description:
          'Uses the state once, redeems the code with the PKCE verifier and verifies the ID token (signature, issuer, audience, expiry, nonce); checks the e-mail claim against the allowed domains; lets in a member, accepts the invitation of an invited address, or (when allowed) adds a VIEWER of no site. Redirects (303) to `/app/sign-in#sso=<code>`: a one-time code (2 minutes) the app exchanges with POST /auth/oidc/exchange; no token is put in an address. A refusal redirects to `/app/sign-in?org=<id>#ssoError=<reason>`, reason one of `state` (unknown, replayed or expired), `provider`, `cancelled`, `verify` (signature, issuer, audience or nonce), `expired` (ID token), `email`, `domain`, `not-invited`.',
        security: [],
        querystring: CallbackQuery,
        response: {
          303: redirectAnswer('To the app: with a one-time code, or with the reason of a refusal'),
          ...errors(400, 404),
        },
      },
    },
    async (request, reply) => {
      const at = request.url.indexOf('?');
      const currentUrl = new URL(`${addresses.callbackUrl}${at < 0 ? '' : request.url.slice(at)}`);
      const to = await finishSignIn(deps(request.log), request.query, currentUrl);
      return reply.header('cache-control', 'no-store').redirect(to, 303);
    },
  );

  app.post(
    '/auth/oidc/exchange',
    {
      config: { public: true },
      schema: {
        operationId: 'sso.exchange',
        tags: TAGS,
        summary: 'Exchange the one-time code of a finished sign-in for an access token',
        description:
          'The code is used once and lives 2 minutes. Public POST: limited per client address like POST /auth/login.',
        security: [],
        body: ExchangeBody,
        response: { 200: ExchangeResponse, ...errors(400, 429) },
      },
    },
    (request) => exchangeCode(database, config, clock, request.body.code),
  );
};
