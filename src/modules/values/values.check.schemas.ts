import Type, { type Static } from 'typebox';
import { IssueCodeSchema, IssueParamsSchema, Uuid } from '../../http/schemas.ts';

/** One finding of the checks of a submission (the check route; outliers also in a submission's answer). */
export const ValueCheck = Type.Object(
  {
    type: Type.Enum(['invalid', 'outlier'], {
      description:
        '`invalid`: a submission of this body would be refused (400) for it; `outlier`: the value would be stored, but it is far from the same element’s earlier values (the element’s `warnChangeFactor`)',
    }),
    path: Type.String({
      description: 'The field of the body it concerns, e.g. `values.2.value` or `values.0.value.1.day`',
      examples: ['values.0.value'],
    }),
    message: Type.String({
      description: 'What is wrong, in plain words for people',
      examples: ['Electricity must be at least 0 kWh'],
    }),
    code: Type.Optional(IssueCodeSchema),
    params: Type.Optional(IssueParamsSchema),
    acknowledged: Type.Optional(
      Type.Boolean({
        description: 'Outliers: true when the value came with a `comment` (the person has explained it)',
      }),
    ),
    value: Type.Optional(
      Type.Number({
        description:
          'Outliers: the value that was compared, in the element’s unit (after any conversion from the unit it was sent in)',
        examples: [12500],
      }),
    ),
    reference: Type.Optional(
      Type.Object(
        {
          year: Type.Integer({ description: 'The year of the period compared with', examples: [2025] }),
          periodUnit: Type.Integer({
            minimum: 1,
            maximum: 12,
            description: 'The period compared with, within its year (month 1–12, quarter 1–4, 1 for a year)',
            examples: [2],
          }),
          value: Type.Number({
            description:
              'The same element’s value at the same site in that period, in the element’s unit: the one this body writes there, else the stored one',
            examples: [3100],
          }),
        },
        {
          additionalProperties: false,
          description:
            'Outliers: the earlier value the check compared with (the previous period first, then the same period a year before)',
        },
      ),
    ),
    factor: Type.Optional(
      Type.Number({
        description: 'Outliers: the element’s `warnChangeFactor` the two values were held against',
        examples: [3],
      }),
    ),
    change: Type.Optional(
      Type.Enum(['more', 'less', 'zero', 'sign'], {
        description:
          'Outliers: how the value stands against the reference. `more`: more than `factor` times it; `less`: less than 1/`factor` of it; `zero`: one of the two is zero and the other is not; `sign`: one is negative and the other positive',
      }),
    ),
    unit: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              id: Uuid,
              symbol: Type.String({ examples: ['kWh'] }),
              name: Type.String({ description: 'The unit’s name for people', examples: ['kilowatt-hour'] }),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        {
          description:
            'Outliers: the element’s unit, which `value` and `reference.value` are in; null for an element without a unit',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ValueCheck = Static<typeof ValueCheck>;

export const CheckAnswer = Type.Object(
  {
    issues: Type.Array(ValueCheck, {
      description:
        'Every finding, in the order of the values; empty: a submission of this body would be stored as it is',
    }),
  },
  {
    examples: [
      {
        issues: [
          { type: 'invalid', path: 'values.0.value', message: 'Electricity must be at least 0 kWh' },
          {
            type: 'outlier',
            path: 'values.1.value',
            message:
              'Natural gas is 12500 kilowatt-hour against 3100 kilowatt-hour in February 2025: more than 3 times as much. Check the value, or explain it in a comment',
            acknowledged: false,
            value: 12500,
            reference: { year: 2025, periodUnit: 2, value: 3100 },
            factor: 3,
            change: 'more',
            unit: { id: '0b9f3c52-6d1e-4a8b-9c57-2f4e8d1a6b30', symbol: 'kWh', name: 'kilowatt-hour' },
          },
        ],
      },
    ],
  },
);
export type CheckAnswer = Static<typeof CheckAnswer>;
