import Type, { type Static } from 'typebox';
import { Nullable } from '../../http/schemas.ts';

/**
 * The schema of `explain` in POST /indicators/current-values: how each value was obtained. Every
 * entry names the expression part it is about (`partIndex`, the index in `expressionParts`).
 */

const S = Nullable(Type.String());
const N = Nullable(Type.Number());
const PartIndex = Type.Integer({ description: 'The index of the part in `expressionParts`' });
const SitesWithData = Type.Integer({
  minimum: 0,
  description: 'How many sites have at least one value counted in it',
});
const OldSiteCount = (what: string) =>
  Type.Integer({ minimum: 0, deprecated: true, description: `The same as \`${what}\` (its former name)` });

export const ExplainOperand = Type.Object({
  partIndex: PartIndex,
  type: Type.Enum(['formElement', 'activity']),
  ref: Type.String({ description: 'The part’s value: the element id, or `formId:key`' }),
  label: S,
  formName: S,
  aggregation: Type.Enum(['SUM', 'AVERAGE', 'LAST']),
  value: Type.Number({ description: 'The aggregate, in `unit`; 0 without data' }),
  unit: S,
  valueCount: Type.Integer({ minimum: 0, description: 'How many values were counted' }),
  sitesWithData: SitesWithData,
  siteCount: OldSiteCount('sitesWithData'),
});

export const ExplainCoefficient = Type.Object({
  partIndex: PartIndex,
  datasetItemId: S,
  datasetId: S,
  datasetName: S,
  key: Type.String(),
  year: Nullable(Type.Integer()),
  value: N,
  unit: S,
  inputUnit: S,
});

export const ExplainConversion = Type.Object({
  partIndex: Type.Integer({ description: 'The part converted; -1: the result into the indicator’s unit' }),
  from: Type.String(),
  to: Type.String(),
  factor: Type.Number(),
  before: Type.Number(),
  after: Type.Number(),
});

export const ExplainNested = Type.Object({
  partIndex: PartIndex,
  indicatorId: Type.String(),
  name: Type.String(),
  value: N,
  unit: S,
});

export const ExplainSiteCoefficient = Type.Object({
  partIndex: PartIndex,
  template: Type.String({ description: 'The key with placeholders, e.g. `grid_{site.metadata.country}`' }),
  key: Type.String({ description: 'The key it resolved to for these sites' }),
  datasetItemId: S,
  datasetId: S,
  year: Nullable(Type.Integer()),
  value: N,
  unit: S,
  sitesWithData: SitesWithData,
  siteCount: OldSiteCount('sitesWithData'),
});

export const ExplainFunction = Type.Object({
  partIndex: Type.Integer({ description: 'The index of the function part (or of the comparison operator)' }),
  function: Type.String({
    description: '`max`, `min`, `abs`, `if`, or a comparison (`<`, `<=`, `>`, `>=`, `==`, `!=`)',
  }),
  inputs: Type.Array(Type.Number(), {
    description:
      'The arguments’ values in the unit of the result; for `if`: the condition (1 true, 0 false) then the value of the branch taken',
  }),
  result: Type.Number({ description: 'For a comparison: 1 (true) or 0 (false)' }),
  sites: Type.Optional(
    Type.Array(Type.String(), {
      description: 'The names of the sites it was applied to, when the expression is evaluated per site',
    }),
  ),
});

const steps = {
  operands: Type.Array(ExplainOperand),
  coefficients: Type.Array(ExplainCoefficient),
  conversions: Type.Array(ExplainConversion),
  nested: Type.Array(ExplainNested, {
    description: 'References to nested indicators; each is explained once in `indicators`, by id',
  }),
  siteCoefficients: Type.Optional(
    Type.Array(ExplainSiteCoefficient, {
      description:
        'Keys with placeholders: the coefficient each resolved to and for how many sites with data',
    }),
  ),
  functions: Type.Array(ExplainFunction),
};

export const ExplainScope = Type.Object({
  siteIds: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'As requested (null: not given)',
  }),
  sitesInScope: Type.Integer({
    minimum: 0,
    description:
      'How many sites the scope spans (the requested ones with their descendants), with data or not',
  }),
  siteCount: OldSiteCount('sitesInScope'),
  allSites: Type.Boolean(),
  fromYear: Type.Integer(),
  toYear: Type.Integer(),
  periodUnits: Nullable(Type.Array(Type.Integer())),
  statuses: Type.Array(Type.String()),
});

export const ExplainedIndicator = Type.Object({
  name: Type.String(),
  value: N,
  unit: S,
  ...steps,
});

export const Explained = Type.Object({
  scope: ExplainScope,
  ...steps,
  indicators: Type.Record(Type.String(), ExplainedIndicator, {
    description: 'Every indicator used, directly or not, explained once, by id',
  }),
});

export const ExplainTruncated = Type.Object({
  truncated: Type.Literal(true),
  issues: Type.Array(Type.Object({ type: Type.Literal('explainTooLarge'), message: Type.String() }), {
    minItems: 1,
  }),
});

export const Explain = Type.Union([Explained, ExplainTruncated], {
  description:
    'Only with `explain: true`: how the value was obtained. Past 20,000 entries: `{truncated: true, issues: [{type: "explainTooLarge"}]}`',
});
export type Explain = Static<typeof Explain>;
