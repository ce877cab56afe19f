import Type from 'typebox';
import { EXAMPLE_SSO_CODE } from '../../http/examples.ts';
import { DateTime, Uuid } from '../../http/schemas.ts';

const Domain = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$',
  description: 'A domain name, e.g. `example.com` (an e-mail of a sub-domain does not match it)',
});

export const SsoSettingsBody = Type.Object(
  {
    issuer: Type.String({
      minLength: 1,
      maxLength: 2000,
      description:
        'The provider’s issuer URL (https): its discovery document is read from `<issuer>/.well-known/openid-configuration`',
    }),
    clientId: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'The client id the provider gave SDCS',
    }),
    clientSecret: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description:
          'The client secret: needed the first time, left out to keep the stored one. Never answered; kept encrypted.',
      }),
    ),
    emailClaim: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[A-Za-z0-9_.:/-]+$',
        description: 'The ID token claim that carries the e-mail address (default `email`)',
      }),
    ),
    displayName: Type.String({
      minLength: 1,
      maxLength: 60,
      description: 'Shown on the sign-in screen as “Sign in with <displayName>”',
    }),
    allowedDomains: Type.Optional(
      Type.Array(Domain, {
        maxItems: 50,
        description: 'E-mail domains allowed to sign in this way; empty or left out: any',
      }),
    ),
    joinAsViewer: Type.Optional(
      Type.Boolean({
        description:
          'An address that was not invited joins as a VIEWER of no site (true) or is refused (false, the default)',
      }),
    ),
    ssoOnly: Type.Optional(
      Type.Boolean({
        description:
          'Members cannot sign in to this organization with a password (API keys keep working); default false',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        issuer: 'https://login.example.com/realms/acme',
        clientId: 'sdcs',
        clientSecret: 'a-long-client-secret-from-the-provider',
        emailClaim: 'email',
        displayName: 'Acme Login',
        allowedDomains: ['example.com'],
        joinAsViewer: false,
        ssoOnly: false,
      },
    ],
  },
);

export const SsoSettings = Type.Object({
  issuer: Type.String(),
  clientId: Type.String(),
  clientSecretSet: Type.Boolean({ description: 'Always true: a secret is stored (it is never answered)' }),
  emailClaim: Type.String(),
  displayName: Type.String(),
  allowedDomains: Type.Array(Type.String()),
  joinAsViewer: Type.Boolean(),
  ssoOnly: Type.Boolean(),
  redirectUri: Type.String({ description: 'The redirect URI to register at the provider' }),
  signInUrl: Type.String({ description: 'The app’s sign-in address that offers this provider' }),
  updatedAt: DateTime,
});

export const SsoPublic = Type.Object({
  organizationId: Uuid,
  displayName: Type.String({ description: 'Shown as “Sign in with <displayName>”' }),
  ssoOnly: Type.Boolean({ description: 'Passwords do not open this organization' }),
  startUrl: Type.String({ description: 'Where the browser goes to sign in with the provider' }),
});

export const OrganizationParams = Type.Object({
  organizationId: Type.String({ description: 'The organization’s id' }),
});

export const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4000 })),
  state: Type.Optional(Type.String({ maxLength: 500 })),
  iss: Type.Optional(Type.String({ maxLength: 2000 })),
  session_state: Type.Optional(Type.String({ maxLength: 2000 })),
  error: Type.Optional(Type.String({ maxLength: 500 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
  error_uri: Type.Optional(Type.String({ maxLength: 2000 })),
});

export const ExchangeBody = Type.Object(
  {
    code: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The one-time code the callback put in the app’s address (`#sso=<code>`)',
    }),
  },
  { additionalProperties: false, examples: [{ code: EXAMPLE_SSO_CODE }] },
);

export const ExchangeResponse = Type.Object({
  accessToken: Type.String({ description: 'Send as `Authorization: Bearer <accessToken>`' }),
  expiresAt: DateTime,
  organizationId: Uuid,
});

/** A 303 redirect: the browser follows `Location`. */
export function redirectAnswer(description: string) {
  return {
    description,
    headers: {
      location: Type.String({ description: 'Where the browser goes next' }),
      'cache-control': Type.String({ description: '`no-store` on the callback’s answer' }),
    },
    type: 'null',
  };
}
