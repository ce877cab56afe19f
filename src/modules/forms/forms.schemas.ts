import Type, { type Static } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';

export const PERIOD_TYPES = ['YEARLY', 'QUARTERLY', 'MONTHLY'] as const;
export const ELEMENT_TYPES = [
  'NUMBER',
  'TEXT',
  'BOOLEAN',
  'SELECT',
  'DATE',
  'TIMESTAMP',
  'FILE',
  'ACTIVITY',
] as const;

export const PeriodType = Type.Enum([...PERIOD_TYPES], {
  description: 'YEARLY (periodUnit 1), QUARTERLY (1..4) or MONTHLY (1..12)',
});
export const ElementType = Type.Enum([...ELEMENT_TYPES]);
export const Metadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Free-form fields; submissions can find a form or element by one of them',
});

export const DueDays = Type.Integer({
  minimum: 0,
  maximum: 366,
  description:
    'Days after the end of a period when its data is due (0: at the end of the period); null or absent: no due date',
});

export const ELEMENT_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';

const SelectOption = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 500 }),
    value: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);

export const ElementInput = Type.Object(
  {
    id: Type.Optional(Uuid),
    key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: ELEMENT_KEY_PATTERN,
        description:
          'Unique among the form’s elements; for ACTIVITY elements it defaults to the definition’s key',
      }),
    ),
    label: Type.String({ minLength: 1, maxLength: 500 }),
    type: ElementType,
    required: Type.Optional(Type.Boolean({ description: 'Shown to data entry; not enforced per request' })),
    unitId: Type.Optional(Nullable(Uuid)),
    options: Type.Optional(Nullable(Type.Array(SelectOption, { minItems: 1, maxItems: 1000 }))),
    activityDefinitionId: Type.Optional(Nullable(Uuid)),
    metadata: Type.Optional(Metadata),
    order: Type.Optional(
      Type.Integer({
        minimum: -1_000_000,
        maximum: 1_000_000,
        description: 'Default: its place in the list',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ElementInput = Static<typeof ElementInput>;

export const FormBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    periodType: PeriodType,
    metadata: Type.Optional(Metadata),
    dueDays: Type.Optional(Nullable(DueDays)),
    elements: Type.Array(ElementInput, { maxItems: 1000 }),
  },
  { additionalProperties: false },
);
export type FormBody = Static<typeof FormBody>;

export const Element = Type.Object({
  id: Uuid,
  key: Type.String(),
  label: Type.String(),
  type: ElementType,
  required: Type.Boolean(),
  unitId: Nullable(Uuid),
  options: Nullable(Type.Array(Type.Object({ label: Type.String(), value: Type.String() }))),
  activityDefinitionId: Nullable(Uuid),
  metadata: Metadata,
  order: Type.Integer(),
});

export const Form = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  periodType: PeriodType,
  metadata: Metadata,
  dueDays: Nullable(DueDays),
  elements: Type.Array(Element, { description: 'The live elements, by order' }),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type Form = Static<typeof Form>;
