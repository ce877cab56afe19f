import Type, { type Static } from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';

const Year = Type.Integer({ minimum: 1900, maximum: 2200 });
const Month = Type.Integer({ minimum: 1, maximum: 12 });
const Quarter = Type.Integer({ minimum: 1, maximum: 4 });
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form fields' });
const EntryType = Type.Enum(['ABSOLUTE', 'PERCENTAGE'], {
  description: 'ABSOLUTE (default): the value itself; PERCENTAGE: the change in % relative to the baseline',
});

export const TargetEntryInput = Type.Object(
  {
    year: Year,
    targetValue: Type.Number({ description: 'A finite number' }),
    siteId: Type.Optional(Nullable(Uuid)),
    month: Type.Optional(Nullable(Month)),
    quarter: Type.Optional(Nullable(Quarter)),
    type: Type.Optional(EntryType),
  },
  { additionalProperties: false, description: 'Give month or quarter, not both (neither: the year)' },
);
export type TargetEntryInput = Static<typeof TargetEntryInput>;

const Entries = Type.Array(TargetEntryInput, { maxItems: 1000 });

const fields = {
  title: Type.String({ minLength: 1, maxLength: 500 }),
  baselineYear: Type.Optional(Nullable(Year)),
  baselineMonth: Type.Optional(Nullable(Month)),
  baselineQuarter: Type.Optional(Nullable(Quarter)),
  metadata: Type.Optional(Metadata),
  targetEntries: Type.Optional(Entries),
};

export const CreateTargetBody = Type.Object(
  { indicatorId: Uuid, ...fields },
  {
    additionalProperties: false,
    examples: [
      {
        indicatorId: EXAMPLE_IDS.indicator,
        title: 'Halve scope 2 emissions by 2030',
        baselineYear: 2019,
        metadata: { framework: 'SBTi' },
        targetEntries: [
          { year: 2030, targetValue: -50, type: 'PERCENTAGE' },
          { year: 2025, quarter: 1, targetValue: 120, siteId: EXAMPLE_IDS.site },
        ],
      },
    ],
  },
);
export type CreateTargetBody = Static<typeof CreateTargetBody>;

export const UpdateTargetBody = Type.Partial(Type.Object(fields), {
  additionalProperties: false,
  description: 'Each field sent is replaced whole (targetEntries: the whole list); indicatorId cannot change',
  examples: [
    {
      title: 'Cut scope 2 emissions by 60% by 2030',
      targetEntries: [{ year: 2030, targetValue: -60, type: 'PERCENTAGE' }],
    },
  ],
});
export type UpdateTargetBody = Static<typeof UpdateTargetBody>;

export const TargetEntry = Type.Object({
  year: Type.Integer(),
  targetValue: Type.Number(),
  siteId: Nullable(Uuid),
  month: Nullable(Type.Integer()),
  quarter: Nullable(Type.Integer()),
  period: Type.Enum(['MONTHLY', 'QUARTERLY', 'YEARLY'], {
    description: 'By which of month or quarter is set',
  }),
  type: EntryType,
});
export type TargetEntry = Static<typeof TargetEntry>;

export const Target = Type.Object({
  id: Uuid,
  indicatorId: Uuid,
  organizationId: Uuid,
  title: Type.String(),
  baselineYear: Nullable(Type.Integer()),
  baselineMonth: Nullable(Type.Integer()),
  baselineQuarter: Nullable(Type.Integer()),
  metadata: Metadata,
  targetEntries: Type.Array(TargetEntry),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type Target = Static<typeof Target>;

export const TargetsQuery = Type.Object(
  { indicatorId: Type.Optional(Type.String({ description: 'Only this indicator’s targets' })) },
  { additionalProperties: false },
);
