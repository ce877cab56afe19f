import Type, { type Static } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';

export const INPUT_TYPES = ['string', 'number', 'boolean', 'date'] as const;
export const KEY_PATTERN = '^[a-z0-9]+(?:[_-][a-z0-9]+)*$';
/** Input names are how calcCode reads them (`inputs.fuelType`): identifiers. */
export const INPUT_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';

export const MAX_CALC_CODE = 100_000;
export const MAX_UI_CODE = 200_000;

const SelectOption = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 500 }),
    value: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);

const Editor = Type.Object(
  {
    type: Type.Literal('select', { description: 'A choice among `options`' }),
    options: Type.Array(SelectOption, { minItems: 1, maxItems: 1000 }),
  },
  { additionalProperties: false },
);

export const InputDefinitionBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: INPUT_NAME_PATTERN,
      description: 'The field of `inputs` calcCode reads; unique within the definition',
    }),
    type: Type.Enum([...INPUT_TYPES], {
      description: 'string, number, boolean or date (an ISO date `YYYY-MM-DD`, sent as a string)',
    }),
    required: Type.Optional(Type.Boolean({ description: 'Default false' })),
    exportName: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Column name in exports; default: `name`' }),
    ),
    example: Type.Optional(Type.String({ maxLength: 1000 })),
    editor: Type.Optional(Editor),
  },
  { additionalProperties: false },
);
export type InputDefinitionBody = Static<typeof InputDefinitionBody>;

const editableFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  uiCode: Type.String({
    maxLength: MAX_UI_CODE,
    description:
      'Body of the input form’s UI component, without the function header and closing brace: the web app wraps it as `function component({ h, inputs, values, set, units, locale, t })` (`h` hyperscript as Preact’s, `inputs` the input definitions, `values` the current values as text, `set(name, value)` changes one input, `units` the unit catalog, `locale` the person’s locale, `t.number`/`t.date` formatters) and it returns the tree to show. It runs in the browser in a sandboxed frame with no network, never on the service. Empty: the generic form from `inputs`. Checked for syntax on save (400 naming uiCode with the line and column). See docs/custom-forms.md.',
  }),
  calcCode: Type.String({
    minLength: 1,
    maxLength: MAX_CALC_CODE,
    description:
      'Body of `async function calculate(inputs, context)`; returns a finite number or `{ value, metadata }`. `context` has `year`, `periodUnit`, `site {id, name, metadata}` and `await context.coefficient(key, {datasetId?, year?} | year)` → `{value, unit, year, datasetId, datasetItemId}` or null (latest dataset year not after the activity’s). Runs in a sandbox: 50 ms, 32 MiB. Checked for syntax on save. See docs/calculations.md.',
  }),
  inputs: Type.Array(InputDefinitionBody, {
    maxItems: 200,
    description: 'The complete list; replaces the stored one',
  }),
  metadataSchema: Type.Optional(
    Nullable(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'JSON Schema of the metadata the calculation returns',
      }),
    ),
  ),
  isCommon: Type.Optional(
    Type.Boolean({ description: 'Share with every organization (platform admins only); default false' }),
  ),
  unitId: Type.Optional(
    Type.Union([Uuid, Type.Null()], {
      description:
        'The unit calcCode returns (a catalog unit or one of the organization’s); indicators convert activity sums from it like element values. Default: none',
    }),
  ),
};

const DEFINITION_EXAMPLE = {
  name: 'Business travel',
  description: 'Trips by car, train or plane, in kgCO2e',
  uiCode: '',
  calcCode:
    'const kgPerKm = { car: 0.17, train: 0.035, plane: 0.25 };\nreturn inputs.distanceKm * kgPerKm[inputs.mode];',
  inputs: [
    { name: 'distanceKm', type: 'number', required: true, exportName: 'Distance (km)', example: '420' },
    {
      name: 'mode',
      type: 'string',
      required: true,
      editor: {
        type: 'select',
        options: [
          { label: 'Car', value: 'car' },
          { label: 'Train', value: 'train' },
          { label: 'Plane', value: 'plane' },
        ],
      },
    },
  ],
};

export const UpdateDefinitionBody = Type.Object(editableFields, {
  additionalProperties: false,
  examples: [DEFINITION_EXAMPLE],
});
export type UpdateDefinitionBody = Static<typeof UpdateDefinitionBody>;

export const CreateDefinitionBody = Type.Object(
  {
    key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: KEY_PATTERN,
        description: 'Slug, unique in the organization; default: derived from the name. Never changes.',
      }),
    ),
    ...editableFields,
  },
  { additionalProperties: false, examples: [{ key: 'business-travel', ...DEFINITION_EXAMPLE }] },
);
export type CreateDefinitionBody = Static<typeof CreateDefinitionBody>;

export const InputDefinition = Type.Object({
  name: Type.String(),
  type: Type.Enum([...INPUT_TYPES]),
  required: Type.Boolean(),
  exportName: Type.String(),
  example: Type.Optional(Type.String()),
  editor: Type.Optional(Editor),
});

export const ActivityDefinition = Type.Object({
  id: Uuid,
  key: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  uiCode: Type.String(),
  calcCode: Type.String(),
  inputs: Type.Array(InputDefinition),
  organizationId: Uuid,
  metadataSchema: Nullable(Type.Record(Type.String(), Type.Unknown())),
  isCommon: Type.Boolean({ description: 'Shared with every organization' }),
  unitId: Type.Union([Uuid, Type.Null()], { description: 'The unit calcCode returns (null: none)' }),
  unitSymbol: Type.Union([Type.String(), Type.Null()], { description: 'Its symbol, e.g. kgCO2e' }),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ActivityDefinition = Static<typeof ActivityDefinition>;
