import Type, { type Static } from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
import { DateTime, Nullable, Uuid, Year } from '../../http/schemas.ts';

export const LockBody = Type.Object(
  {
    formId: Uuid,
    year: Year,
    periodUnit: Type.Optional(
      Nullable(
        Type.Integer({ minimum: 1, maximum: 12, description: 'One period; absent or null: the whole year' }),
      ),
    ),
    siteIds: Type.Optional(
      Type.Array(Uuid, {
        minItems: 1,
        maxItems: 10_000,
        description: 'These sites (each exactly, not its sub-sites); absent: every site (owners)',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ formId: EXAMPLE_IDS.form, year: 2025, periodUnit: 3, siteIds: [EXAMPLE_IDS.site] }],
  },
);
export type LockBody = Static<typeof LockBody>;

export const FormLock = Type.Object({
  id: Uuid,
  formId: Uuid,
  year: Type.Integer(),
  periodUnit: Nullable(Type.Integer({ description: 'null: the whole year' })),
  siteId: Nullable(Uuid),
  siteName: Nullable(Type.String({ description: 'null: every site of the organization' })),
  createdBy: Uuid,
  createdByName: Type.String(),
  createdAt: DateTime,
  unlockedBy: Nullable(Uuid),
  unlockedByName: Nullable(Type.String()),
  unlockedAt: Nullable(DateTime),
});
export type FormLock = Static<typeof FormLock>;

export const LocksQuery = Type.Object(
  {
    formId: Type.String({ minLength: 1, maxLength: 100 }),
    includeUnlocked: Type.Optional(
      Type.Boolean({ default: false, description: 'Also the locks lifted since (who unlocked, when)' }),
    ),
  },
  { additionalProperties: false },
);
export type LocksQuery = Static<typeof LocksQuery>;
