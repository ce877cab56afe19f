import Type, { type Static, type TSchema } from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
import { Pagination, pageQuery } from '../../http/paging.ts';
import { DateTime, Uuid, Year } from '../../http/schemas.ts';

const InputObject = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Input values by input name, as the activity definition’s `inputs` declare them',
});
const Metadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'What the calculation returned beside the value',
});

// The activities of a submission's answer are shown as the submissions module declares them.
export { ActivitySummary } from '../values/index.ts';

export const Activity = Type.Object({
  activityId: Uuid,
  formElementSubmissionId: Uuid,
  input: InputObject,
  value: Type.Number(),
  unit: Type.Union([Type.String(), Type.Null()], {
    description: 'The unit of `value`: the symbol of the activity definition’s unitId (null: none)',
  }),
  siteId: Uuid,
  siteName: Type.String(),
  year: Type.Integer(),
  periodUnit: Type.Integer(),
  metadata: Metadata,
});
export type Activity = Static<typeof Activity>;

const List = <T extends TSchema>(description: string, item: T) =>
  Type.Optional(
    Type.Array(item, {
      maxItems: 1000,
      description: `${description}; comma-separated, or the parameter repeated`,
    }),
  );

export const ActivitiesQuery = Type.Object(
  {
    formId: Type.String({ minLength: 1, maxLength: 100, description: 'The form' }),
    key: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Key of the ACTIVITY element in the form (by default its activity definition’s key)',
    }),
    siteIds: List('Only these sites (exactly these, not their sub-sites)', Uuid),
    years: List('Only these years', Type.Integer({ minimum: 1900, maximum: 2200 })),
    periodUnits: List(
      'Only these periods (1 to 12 as the form’s period type allows)',
      Type.Integer({ minimum: 1, maximum: 12 }),
    ),
    ...pageQuery('Activities'),
  },
  { additionalProperties: false },
);
export type ActivitiesQuery = Static<typeof ActivitiesQuery>;

export const NoActivityMarker = Type.Object({
  id: Uuid,
  siteId: Uuid,
  siteName: Type.String(),
  year: Type.Integer(),
  periodUnit: Type.Integer(),
  createdAt: DateTime,
});

export const ActivityPage = Type.Object({
  activities: Type.Array(Activity),
  noActivity: Type.Array(NoActivityMarker, {
    description: 'The periods marked “no activity” that match the filters (all of them, not paged)',
  }),
  pagination: Pagination,
});
export type ActivityPage = Static<typeof ActivityPage>;

export const ActivityParams = Type.Object({
  activityId: Type.String({ description: 'Identifier of the activity' }),
});

export const PatchActivityBody = Type.Object(
  {
    input: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Fields to change; fields not sent keep their value, null clears a field',
    }),
  },
  { additionalProperties: false, examples: [{ input: { distanceKm: 380 } }] },
);
export type PatchActivityBody = Static<typeof PatchActivityBody>;

export const PatchActivityResult = Type.Object({
  value: Type.Number(),
  input: InputObject,
  metadata: Metadata,
});
export type PatchActivityResult = Static<typeof PatchActivityResult>;

export const MarkerBody = Type.Object(
  {
    formId: Type.String({ minLength: 1, maxLength: 100, description: 'The form' }),
    key: Type.String({ minLength: 1, maxLength: 100, description: 'Key of the ACTIVITY element' }),
    siteId: Type.String({ minLength: 1, maxLength: 100, description: 'The site' }),
    year: Year,
    periodUnit: Type.Integer({ minimum: 1, maximum: 12, description: 'The period within the year' }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        formId: EXAMPLE_IDS.form,
        key: 'business_travel',
        siteId: EXAMPLE_IDS.site,
        year: 2025,
        periodUnit: 2,
      },
    ],
  },
);
export type MarkerBody = Static<typeof MarkerBody>;

export const MarkerResult = Type.Object({
  success: Type.Boolean(),
  id: Uuid,
});

export const RecalculateResult = Type.Object({
  recalculated: Type.Integer({ description: 'Activities calculated without error' }),
  changed: Type.Integer({ description: 'Of those, how many got a new value or new metadata' }),
  failed: Type.Integer({ description: 'Activities whose calculation failed; they keep their value' }),
  skipped: Type.Integer({ description: 'Activities of locked periods (form locks): not recalculated' }),
  failures: Type.Array(Type.Object({ activityId: Uuid, message: Type.String() }), {
    description: 'The first 100 failures',
  }),
});
export type RecalculateResult = Static<typeof RecalculateResult>;
