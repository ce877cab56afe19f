import Type, { type Static } from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
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

export const PeriodTypeSchema = Type.Enum([...PERIOD_TYPES], {
  description: 'YEARLY (periodUnit 1), QUARTERLY (1..4) or MONTHLY (1..12)',
});
export const ElementTypeSchema = Type.Enum([...ELEMENT_TYPES], {
  description:
    'What a value of the element is: NUMBER (with a unit), TEXT, BOOLEAN, SELECT (one of the options), DATE, TIMESTAMP (many per period), FILE, ACTIVITY (a list of calculated activities)',
});
export const AggregationSchema = Type.Enum(['SUM', 'LAST', 'AVERAGE'], {
  description:
    'NUMBER elements: how one site’s periods combine in indicators. SUM (default) for flows such as kWh; LAST (the latest period in scope) or AVERAGE (the mean of the periods with data) for stocks such as headcount. Across sites values always add up.',
});
export const ElementMetadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Free-form fields; submissions can find a form or element by one of them',
});

const MIN_VALUE_DESCRIPTION =
  'NUMBER elements: the smallest value accepted, in the element’s unit (a value sent in another unit is converted first); null: no lower limit. Changing it does not rewrite stored values';
const MAX_VALUE_DESCRIPTION =
  'NUMBER elements: the largest value accepted, in the element’s unit (a value sent in another unit is converted first); null: no upper limit. Changing it does not rewrite stored values';
const INTEGER_DESCRIPTION =
  'NUMBER elements: only whole numbers are accepted (checked in the element’s unit, after conversion)';
const WARN_CHANGE_FACTOR_DESCRIPTION =
  'NUMBER elements: a value more than this factor above or below the same element’s value at the same site in the previous period, or in the same period last year, is an outlier: stored, but answered with an issue of type `outlier` (a value with a `comment` counts as acknowledged). Must be greater than 1; null: no outlier check';

/** The plausibility rules of NUMBER elements, as requests send them (all optional). */
const ruleInputs = {
  minValue: Type.Optional(Nullable(Type.Number({ description: MIN_VALUE_DESCRIPTION, examples: [0] }))),
  maxValue: Type.Optional(
    Nullable(Type.Number({ description: MAX_VALUE_DESCRIPTION, examples: [1_000_000] })),
  ),
  integer: Type.Optional(Type.Boolean({ description: `${INTEGER_DESCRIPTION}. Default false` })),
  warnChangeFactor: Type.Optional(
    Nullable(
      Type.Number({ exclusiveMinimum: 1, description: WARN_CHANGE_FACTOR_DESCRIPTION, examples: [3] }),
    ),
  ),
};

export const DueDays = Type.Integer({
  minimum: 0,
  maximum: 366,
  description:
    'Days after the end of a period when its data is due (0: at the end of the period); null or absent: no due date',
});

/**
 * A text in other languages, by the BCP 47 tag of a language SDCS ships: `{ "de": "Strom" }`.
 * Shown to a person whose app is in that language; the text as written is shown otherwise.
 */
const perLanguage = (maxLength: number, what: string) => {
  const text = () => Type.Optional(Type.String({ minLength: 1, maxLength }));
  return Type.Object(
    { en: text(), de: text(), fr: text(), es: text(), pl: text() },
    {
      additionalProperties: false,
      description: `${what} in other languages, by language (en, de, fr, es, pl); shown to people whose app is in that language`,
    },
  );
};
export const ElementLabels = perLanguage(500, 'The label');
export const ElementHelpTexts = perLanguage(2000, 'A help text shown under the label');
export const FormNames = perLanguage(200, 'The name');

export const ELEMENT_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';

const SelectOption = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 500, description: 'Shown to people' }),
    value: Type.String({ minLength: 1, maxLength: 500, description: 'Stored and sent as the value' }),
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
    label: Type.String({ minLength: 1, maxLength: 500, description: 'The question shown to people' }),
    labels: Type.Optional(ElementLabels),
    helpTexts: Type.Optional(ElementHelpTexts),
    type: ElementTypeSchema,
    required: Type.Optional(Type.Boolean({ description: 'Shown to data entry; not enforced per request' })),
    unitId: Type.Optional(
      Nullable({ ...Uuid, description: 'NUMBER elements: the unit values are stored in' }),
    ),
    options: Type.Optional(
      Nullable(
        Type.Array(SelectOption, {
          minItems: 1,
          maxItems: 1000,
          description: 'SELECT elements: the choices',
        }),
      ),
    ),
    activityDefinitionId: Type.Optional(
      Nullable({
        ...Uuid,
        description: 'ACTIVITY elements: the activity definition that calculates each entry',
      }),
    ),
    aggregation: Type.Optional(AggregationSchema),
    ...ruleInputs,
    metadata: Type.Optional(ElementMetadata),
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
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Display name' }),
    names: Type.Optional(FormNames),
    description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    periodType: PeriodTypeSchema,
    metadata: Type.Optional(ElementMetadata),
    dueDays: Type.Optional(Nullable(DueDays)),
    elements: Type.Array(ElementInput, {
      maxItems: 1000,
      description: 'The questions of the form; on update the complete list (matched by id or key)',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Monthly energy and travel',
        description: 'Metered energy and business trips of each site',
        periodType: 'MONTHLY',
        metadata: { code: 'ENERGY' },
        dueDays: 15,
        elements: [
          {
            key: 'electricity',
            label: 'Electricity used',
            type: 'NUMBER',
            unitId: EXAMPLE_IDS.unitKwh,
            required: true,
            minValue: 0,
            maxValue: 5_000_000,
            warnChangeFactor: 3,
          },
          {
            key: 'natural_gas',
            label: 'Natural gas',
            type: 'NUMBER',
            unitId: EXAMPLE_IDS.unitKwh,
            metadata: { erpCode: 'NG' },
          },
          {
            key: 'heating_source',
            label: 'Main heating source',
            type: 'SELECT',
            options: [
              { label: 'Gas boiler', value: 'gas' },
              { label: 'Heat pump', value: 'heat_pump' },
            ],
          },
          {
            key: 'business_travel',
            label: 'Business travel',
            type: 'ACTIVITY',
            activityDefinitionId: EXAMPLE_IDS.activityDefinition,
          },
        ],
      },
    ],
  },
);
export type FormBody = Static<typeof FormBody>;

export const Element = Type.Object({
  id: Uuid,
  key: Type.String({ description: 'Unique in the form; submissions name the element by it' }),
  label: Type.String({ description: 'The question shown to people' }),
  labels: ElementLabels,
  helpTexts: ElementHelpTexts,
  type: ElementTypeSchema,
  required: Type.Boolean({ description: 'Shown to data entry; not enforced per request' }),
  unitId: Nullable({ ...Uuid, description: 'NUMBER elements: the unit values are stored in' }),
  options: Nullable(
    Type.Array(Type.Object({ label: Type.String(), value: Type.String() }), {
      description: 'SELECT elements: the choices',
    }),
  ),
  activityDefinitionId: Nullable({ ...Uuid, description: 'ACTIVITY elements: the activity definition' }),
  aggregation: AggregationSchema,
  minValue: Nullable(Type.Number({ description: MIN_VALUE_DESCRIPTION })),
  maxValue: Nullable(Type.Number({ description: MAX_VALUE_DESCRIPTION })),
  integer: Type.Boolean({ description: INTEGER_DESCRIPTION }),
  warnChangeFactor: Nullable(Type.Number({ description: WARN_CHANGE_FACTOR_DESCRIPTION })),
  metadata: ElementMetadata,
  order: Type.Integer({ description: 'Position in the form' }),
});

export const Form = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  name: Type.String({ description: 'Display name' }),
  names: FormNames,
  description: Nullable(Type.String({ description: 'Free text for people' })),
  periodType: PeriodTypeSchema,
  metadata: ElementMetadata,
  dueDays: Nullable(DueDays),
  elements: Type.Array(Element, { description: 'The live elements, by order' }),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type Form = Static<typeof Form>;
