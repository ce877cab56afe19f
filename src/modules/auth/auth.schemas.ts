import Type from 'typebox';
import { EXAMPLE_LOGIN } from '../../http/examples.ts';
import { DateTime, LocaleTag, RoleName, Uuid } from '../../http/schemas.ts';

const Email = Type.String({ format: 'email', maxLength: 320 });
const Password = Type.String({ minLength: 8, maxLength: 200, description: 'At least 8 characters' });

export const SignupBody = Type.Object(
  {
    organizationName: Type.String({ minLength: 1, maxLength: 200, description: 'The new organization' }),
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Your name' }),
    email: Email,
    password: Password,
  },
  {
    additionalProperties: false,
    examples: [
      {
        organizationName: 'Acme Manufacturing',
        name: 'Grace Hopper',
        email: 'grace@example.com',
        password: 'correct horse battery staple',
      },
    ],
  },
);

export const LoginBody = Type.Object(
  {
    email: Email,
    password: Type.String({ minLength: 1, maxLength: 200 }),
    organizationId: Type.Optional(Uuid),
  },
  { additionalProperties: false, examples: [EXAMPLE_LOGIN] },
);

const TokenFields = {
  accessToken: Type.String({ description: 'Send as `Authorization: Bearer <accessToken>`' }),
  expiresAt: DateTime,
};

export const SignupResponse = Type.Object({
  organization: Type.Object({ id: Uuid, name: Type.String(), createdAt: DateTime }),
  user: Type.Object({ id: Uuid, email: Type.String(), name: Type.String() }),
  ...TokenFields,
});

export const LoginResponse = Type.Object({
  ...TokenFields,
  organizationId: Uuid,
  organizations: Type.Array(Type.Object({ id: Uuid, name: Type.String(), role: RoleName }), {
    description: 'Every organization the user belongs to; log in with organizationId to switch',
  }),
});

export const MeResponse = Type.Object({
  user: Type.Object({
    id: Uuid,
    email: Type.String(),
    name: Type.String(),
    image: Type.Union([Type.String(), Type.Null()]),
    locale: Type.Union([LocaleTag, Type.Null()], {
      description:
        'The language the person chose for the web app and the e-mails sent to them; null: the web app follows the browser, e-mails are in English',
    }),
  }),
  organization: Type.Object({ id: Uuid, name: Type.String() }),
  role: RoleName,
  isAdmin: Type.Boolean({ description: 'Platform administrator' }),
  credential: Type.Union([Type.Literal('token'), Type.Literal('apikey')], {
    description: 'What the call was made with: an access token or an API key',
  }),
  siteIds: Type.Array(Uuid, {
    description:
      'Sites assigned to the caller directly; each includes its descendants (owners see every site)',
  }),
});

export const MePatchBody = Type.Object(
  {
    locale: Type.Union([LocaleTag, Type.Null()], {
      description: 'The language of the web app and of the e-mails sent to you; null to follow the browser',
    }),
  },
  { additionalProperties: false, examples: [{ locale: 'de' }] },
);
