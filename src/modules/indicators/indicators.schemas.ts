import Type, { type Static } from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';
import { Explain } from './indicators.explain-schema.ts';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Text = Type.String({ maxLength: 5000 });
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 });
const Year = Type.Integer({ minimum: 1900, maximum: 2200 });
const Status = Type.Enum(['COMPLETED', 'APPROVED', 'REJECTED']);

export const ExpressionPart = Type.Object(
  {
    type: Type.String({
      description:
        '`number`, `operator` (+ - * /, or a comparison < <= > >= == != as the condition of `if`), `parenthesis` (( or )), `function` (`max`, `min`, `abs`, `if`: followed by `(`, the arguments, `)`), `separator` (`,` between arguments), `formElement` (element id), `activity` (`formId:key`), `datasetItem` (item id, or key with `metadata.datasetId`; a key may hold `{site.code}` or `{site.metadata.<field>}`, looked up per site, e.g. `grid_{site.metadata.country}`), `indicator` (indicator id)',
    }),
    value: Type.String({ maxLength: 500 }),
    metadata: Type.Optional(Type.Unknown({ description: 'For a datasetItem given by key: `{datasetId}`' })),
  },
  { additionalProperties: false },
);
export type ExpressionPart = Static<typeof ExpressionPart>;

const fields = {
  name: Name,
  label: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  description: Type.Optional(Nullable(Text)),
  unitId: Type.Optional(Nullable(Uuid)),
  displayUnitId: Type.Optional(Nullable(Uuid)),
  tags: Type.Optional(Tags),
  expressionParts: Type.Array(ExpressionPart, { minItems: 1, maxItems: 500 }),
  preferredDatasetItemName: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  preferredDatasetItemDatasetId: Type.Optional(Nullable(Uuid)),
};

export const CreateIndicatorBody = Type.Object(fields, {
  additionalProperties: false,
  examples: [
    {
      name: 'Scope 2 emissions',
      label: 'Scope 2 emissions (location-based)',
      tags: ['ghg', 'scope-2'],
      expressionParts: [
        { type: 'parenthesis', value: '(' },
        { type: 'number', value: '1200' },
        { type: 'operator', value: '-' },
        { type: 'number', value: '200' },
        { type: 'parenthesis', value: ')' },
        { type: 'operator', value: '*' },
        { type: 'datasetItem', value: EXAMPLE_IDS.datasetItem },
      ],
    },
  ],
});
export type CreateIndicatorBody = Static<typeof CreateIndicatorBody>;

export const UpdateIndicatorBody = Type.Partial(Type.Object(fields), {
  additionalProperties: false,
  examples: [{ label: 'Scope 2 emissions (market-based)', tags: ['ghg'] }],
  description: 'Each field sent replaces the stored one; others are kept',
});
export type UpdateIndicatorBody = Static<typeof UpdateIndicatorBody>;

const S = Nullable(Type.String());
export const ListIssue = Type.Object({
  type: Type.String({
    description:
      '`deletedFormElement`, `unitMismatch`, `missingDatasetItem` or `dimensionMismatch` (saved before units were checked: the expression’s dimension is not the unit’s, or it adds different dimensions; the value is computed as before) or `unknownUnit` (a part without a known unit in an indicator that has one: that part is neither checked nor converted)',
  }),
  message: Type.String(),
  partIndex: Nullable(Type.Integer()),
  formElementId: S,
  formName: S,
  fieldName: S,
  indicatorId: S,
  indicatorName: S,
  status: S,
  datasetId: S,
  datasetName: S,
  datasetItemName: S,
  indicatorUnitSymbol: Type.Union([Type.String(), Type.Null()], {
    description: 'unitMismatch: the indicator’s unit (null when it has none), as in a computed value’s issue',
  }),
  operandUnitSymbol: Type.Union([Type.String(), Type.Null()], {
    description: 'unitMismatch: the unit of the operand (element) that cannot be converted',
  }),
  inputUnitSymbol: Type.Union([Type.String(), Type.Null()], {
    description: 'unitMismatch: the input unit of the coefficient',
  }),
});
export type ListIssue = Static<typeof ListIssue>;

export const WidgetUsage = Type.Object({
  widgetId: Type.String(),
  widgetName: S,
  dashboardId: S,
  dashboardName: S,
  reportId: S,
  reportSectionId: S,
  reportSectionName: S,
  reportName: S,
  isDirect: Type.Boolean(),
  viaIndicatorId: S,
  viaIndicatorName: S,
  viaIndicatorLabel: S,
});
export type WidgetUsage = Static<typeof WidgetUsage>;

export const Indicator = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  name: Type.String(),
  label: S,
  description: S,
  unitId: Nullable(Uuid),
  unitName: S,
  displayUnitId: Nullable(Uuid),
  displayUnitName: S,
  tags: Type.Array(Type.String()),
  preferredDatasetItemName: S,
  preferredDatasetItemDatasetId: S,
  expressionParts: Type.Array(ExpressionPart),
  datasetItems: Type.Array(
    Type.Object({
      id: Uuid,
      name: Type.String(),
      datasetId: Uuid,
      datasetName: Type.String(),
      year: Type.Integer(),
      data: Type.Object({ key: Type.String(), value: Type.Number(), unit: S }),
      inputUnitId: Nullable(Uuid),
      inputUnitSymbol: S,
    }),
    { description: 'The coefficients the expression uses (for a key: its latest year)' },
  ),
  widgetUsage: Type.Array(WidgetUsage),
  issues: Type.Array(ListIssue),
  _count: Type.Object({ datasets: Type.Integer({ description: 'Distinct datasets used' }) }),
  indicatorUsage: Type.Array(Type.Object({ indicatorId: Uuid, indicatorLabel: Type.String() }), {
    description: 'The indicators whose expression uses this one',
  }),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type Indicator = Static<typeof Indicator>;

export const CurrentValuesBody = Type.Object(
  {
    indicatorIds: Type.Array(Type.String(), { minItems: 1, maxItems: 500 }),
    siteIds: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: 10_000,
        description: 'Each includes its descendants; default: every site the caller may read',
      }),
    ),
    year: Type.Optional(Year),
    startYear: Type.Optional(Year),
    endYear: Type.Optional(Year),
    periodUnits: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 12 }), {
        maxItems: 12,
        description: 'Period numbers within a year (1..4 quarters, 1..12 months); default: all',
      }),
    ),
    statuses: Type.Optional(
      Type.Array(Status, {
        minItems: 1,
        maxItems: 3,
        description: 'Default: the organization’s defaultStatuses',
      }),
    ),
    explain: Type.Optional(Type.Boolean({ description: 'Add how each value was obtained' })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        indicatorIds: [EXAMPLE_IDS.indicator],
        siteIds: [EXAMPLE_IDS.site],
        year: 2025,
        periodUnits: [1, 2, 3],
        statuses: ['APPROVED'],
        explain: true,
      },
    ],
  },
);
export type CurrentValuesBody = Static<typeof CurrentValuesBody>;

export const IndicatorIssue = Type.Object(
  {
    type: Type.String({
      description:
        '`noData`, `divisionByZero`, `missingDatasetItem`, `unitMismatch`, `deletedFormElement`, `overflow`, `invalidExpression`, `unknownUnit` (a part without a known unit: the value is not checked against the indicator’s unit nor converted into it). A `missingDatasetItem` of a site-dependent coefficient also has `siteId`, `siteName` and `key` (the key the site looked for): that site’s data is left out of the value. A `unitMismatch` has `indicatorUnitSymbol` (the indicator’s unit), `operandUnitSymbol` (the element’s), `inputUnitSymbol` (the coefficient’s input unit) and, for a site-dependent indicator, `siteIds` and `siteNames` of every site affected',
    }),
    message: Type.String(),
    partIndex: Type.Optional(Type.Integer()),
  },
  { additionalProperties: true },
);

export const CurrentValue = Type.Object({
  value: Type.Union([Type.Number(), Type.Null()], { description: 'In the indicator’s unit' }),
  unit: S,
  displayValue: Type.Union([Type.Number(), Type.Null()], { description: 'In the display unit' }),
  displayUnit: S,
  formatted: Type.Union([Type.String(), Type.Null()], { description: 'e.g. `0.3 tCO2e`' }),
  issues: Type.Array(IndicatorIssue),
  explain: Type.Optional(Explain),
});

export type CurrentValue = Static<typeof CurrentValue>;

export const CurrentValues = Type.Object({ results: Type.Record(Type.String(), CurrentValue) });
