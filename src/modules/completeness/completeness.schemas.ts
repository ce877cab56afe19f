import Type, { type Static, type TSchema } from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
import { Pagination, pageQuery } from '../../http/paging.ts';
import { DateTime, Nullable, Uuid, Year } from '../../http/schemas.ts';

const List = <T extends TSchema>(description: string, item: T) =>
  Type.Optional(
    Type.Array(item, {
      maxItems: 1000,
      description: `${description}; comma-separated, or the parameter repeated`,
    }),
  );

export const CompletenessQuery = Type.Object(
  {
    formId: Type.String({ minLength: 1, maxLength: 100, description: 'The form' }),
    year: Year,
    siteIds: List('Only these sites (exactly these, not their sub-sites)', Uuid),
    periodUnits: List(
      'Only these periods (default: every period of the year)',
      Type.Integer({ minimum: 1, maximum: 12 }),
    ),
    ...pageQuery('Sites'),
  },
  { additionalProperties: false },
);
export type CompletenessQuery = Static<typeof CompletenessQuery>;

export const COMPLETENESS_STATUSES = ['COMPLETE', 'PARTIAL', 'MISSING', 'NO_ACTIVITY'] as const;

export const PeriodCompleteness = Type.Object({
  periodUnit: Type.Integer(),
  expected: Type.Integer({ description: 'Elements expected for the period (the form’s required ones)' }),
  reported: Type.Integer({ description: 'Of those, how many are reported' }),
  missing: Type.Array(Type.String(), { description: 'Keys of the expected elements not reported' }),
  status: Type.Enum([...COMPLETENESS_STATUSES], {
    description:
      'COMPLETE: every expected element reported; NO_ACTIVITY: complete through no-activity markers only; PARTIAL: some; MISSING: none',
  }),
  lastReportedAt: Nullable(DateTime),
  dueAt: Nullable(DateTime),
  onTime: Type.Boolean({ description: 'Complete, and every expected element was first reported by `dueAt`' }),
  overdue: Type.Boolean({ description: 'Not complete and past `dueAt`' }),
  locked: Type.Boolean({ description: 'A form lock covers the period on this site: its data cannot change' }),
});

const Rates = {
  expectedReports: Type.Integer({ description: 'Periods expected (active site × period)' }),
  actualReports: Type.Integer({ description: 'Periods COMPLETE or NO_ACTIVITY' }),
  onTimeReports: Type.Integer({ description: 'Of those, reported on time' }),
  rate: Nullable(
    Type.Number({
      description:
        'actualReports / expectedReports × 100, rounded to 2 decimals (halves up: 2 of 3 is 66.67); the exact figure follows from the two whole counts beside it; null when expectedReports is 0',
    }),
  ),
  onTimeRate: Nullable(
    Type.Number({
      description:
        'onTimeReports / expectedReports × 100, rounded to 2 decimals like `rate`; null when expectedReports is 0',
    }),
  ),
};

export const SiteCompleteness = Type.Object({
  siteId: Uuid,
  siteName: Type.String(),
  ...Rates,
  periods: Type.Array(PeriodCompleteness),
});

export const CompletenessReport = Type.Object({
  formId: Uuid,
  year: Type.Integer(),
  periodType: Type.String(),
  dueDays: Nullable(Type.Integer()),
  expectedElements: Type.Array(Type.String(), { description: 'Keys of the expected elements' }),
  items: Type.Array(SiteCompleteness, { description: 'One page of sites, by name' }),
  totals: Type.Object({
    sites: Type.Integer(),
    ...Rates,
    complete: Type.Integer(),
    partial: Type.Integer(),
    missing: Type.Integer(),
    noActivity: Type.Integer(),
    overdue: Type.Integer(),
  }),
  pagination: Pagination,
});
export type CompletenessReport = Static<typeof CompletenessReport>;

export const RemindersBody = Type.Object(
  {
    formId: Uuid,
    year: Year,
    periodUnit: Type.Integer({ minimum: 1, maximum: 12 }),
    siteIds: Type.Optional(
      Type.Array(Uuid, {
        maxItems: 10_000,
        description: 'Only these sites; absent: every site you can read',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ formId: EXAMPLE_IDS.form, year: 2025, periodUnit: 3, siteIds: [EXAMPLE_IDS.site] }],
  },
);
export type RemindersBody = Static<typeof RemindersBody>;

export const RemindersResult = Type.Object({
  reminded: Type.Integer({ description: 'People e-mailed by this call' }),
  alreadyReminded: Type.Integer({
    description:
      'People skipped: already reminded of this period, or of 5 form periods in all, in the last 24 hours',
  }),
  sites: Type.Integer({ description: 'Sites MISSING or PARTIAL for the period' }),
});
export type RemindersResult = Static<typeof RemindersResult>;
