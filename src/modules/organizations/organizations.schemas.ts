import Type from 'typebox';
import { DateTime, Uuid } from '../../http/schemas.ts';

const Status = Type.Union([Type.Literal('COMPLETED'), Type.Literal('APPROVED'), Type.Literal('REJECTED')]);

export const Organization = Type.Object({
  id: Uuid,
  name: Type.String(),
  defaultStatuses: Type.Array(Status, {
    description: 'Value statuses that indicators and dashboards count when a request names none',
  }),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const UpdateOrganizationBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    defaultStatuses: Type.Optional(
      Type.Array(Status, {
        minItems: 1,
        uniqueItems: true,
        description: 'At least one of COMPLETED, APPROVED, REJECTED, each at most once',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Acme Manufacturing Europe', defaultStatuses: ['COMPLETED', 'APPROVED'] }],
  },
);
