import Type from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
import { DateTime, Nullable, RoleName, Uuid } from '../../http/schemas.ts';

export const Member = Type.Object({
  userId: Uuid,
  email: Type.String(),
  name: Type.String(),
  role: RoleName,
  status: Type.Union([Type.Literal('active'), Type.Literal('pending')], {
    description: '`pending` until the invitation is accepted',
  }),
  siteIds: Type.Array(Uuid, { description: 'Directly assigned sites; each includes its descendants' }),
  createdAt: DateTime,
  invitationExpiresAt: Nullable(DateTime),
});

export const MemberParams = Type.Object({ userId: Type.String({ description: 'The member’s user id' }) });

export const UpdateMemberBody = Type.Object(
  {
    role: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20,
        description: 'Owner, Manager, Collector or Viewer, any letter case',
      }),
    ),
    siteIds: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: 1000,
        description: 'Replaces the member’s assigned sites; each includes its descendants',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ role: 'COLLECTOR', siteIds: [EXAMPLE_IDS.site] }] },
);
