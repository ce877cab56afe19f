import Type from 'typebox';
import { EXAMPLE_IDS, EXAMPLE_INVITATION_TOKEN } from '../../http/examples.ts';
import { DateTime, LocaleTag, Nullable, Uuid } from '../../http/schemas.ts';

export const InviteBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320, description: 'Who to invite' }),
    assignedSiteIds: Type.Array(Type.String(), {
      maxItems: 1000,
      description: 'Sites the invitee will work on; each includes all its descendants',
    }),
    role: Type.String({
      minLength: 1,
      maxLength: 20,
      description: 'Owner, Manager, Collector or Viewer, in any letter case (e.g. `COLLECTOR`)',
    }),
    locale: Type.Optional(
      Type.Union([LocaleTag, Type.Null()], {
        description:
          "The invitee's language: the invitation e-mail is written in it, and an account without a language of its own keeps it. Default: the language the invitee chose, else English",
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ email: 'lin.chen@example.com', assignedSiteIds: [EXAMPLE_IDS.site], role: 'COLLECTOR' }],
  },
);

export const InvitationResult = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
});

export const AcceptBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'The token from the invitation link' }),
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Your name (kept as is for an existing account)',
    }),
    password: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'A new password of at least 8 characters, or the password of your existing account',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      { token: EXAMPLE_INVITATION_TOKEN, name: 'Lin Chen', password: 'correct horse battery staple' },
    ],
  },
);

export const AcceptResult = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  accessToken: Type.String({ description: 'Send as `Authorization: Bearer <accessToken>`' }),
  expiresAt: DateTime,
  organizationId: Uuid,
});

export const DescribeBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'The token from the invitation link' }),
  },
  { additionalProperties: false, examples: [{ token: EXAMPLE_INVITATION_TOKEN }] },
);

export const InvitationDescription = Type.Object(
  {
    state: Type.Union([Type.Literal('open'), Type.Literal('accepted'), Type.Literal('expired')], {
      description: '`open` until the invitation is accepted or its 7 days have passed',
    }),
    organizationName: Type.String({ description: 'The organization the invitation is to' }),
    email: Nullable(
      Type.String({ description: 'The invited address, while the invitation is open (else null)' }),
    ),
    role: Nullable(Type.String({ description: 'The role offered (`OWNER` … `VIEWER`), while open' })),
    inviterName: Nullable(Type.String({ description: 'Who sent the invitation, while open' })),
    hasAccount: Nullable(
      Type.Boolean({
        description:
          'While open: true when the address already has an SDCS account (accepting asks for its password)',
      }),
    ),
  },
  {
    examples: [
      {
        state: 'open',
        organizationName: 'Acme Group',
        email: 'lin.chen@example.com',
        role: 'COLLECTOR',
        inviterName: 'Ana Owner',
        hasAccount: false,
      },
    ],
  },
);
