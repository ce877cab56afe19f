import Type, { type Static } from 'typebox';
import { Pagination, pageQuery } from '../../http/paging.ts';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';
import { Year } from '../form-sites/form-sites.schemas.ts';

export const STATUSES = ['COMPLETED', 'APPROVED', 'REJECTED'] as const;
export const Status = Type.Enum([...STATUSES]);

const Ref = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description }));

export const SubmitValue = Type.Object(
  {
    periodUnit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 12,
        description:
          'YEARLY forms: 1; QUARTERLY: 1..4; MONTHLY: 1..12. Derived from the timestamp for TIMESTAMP elements',
      }),
    ),
    elementId: Ref('The element; or give elementKey, or elementMetadataKey and elementMetadataValue'),
    elementKey: Ref('The element’s key in the form'),
    elementMetadataKey: Ref('Find the element by this metadata field…'),
    elementMetadataValue: Ref('…having this value'),
    value: Type.Unknown({
      description:
        'Checked against the element’s type. null deletes the value (for TIMESTAMP elements: the record of that timestamp)',
    }),
    selectedUnitId: Type.Optional(
      Nullable(Type.String({ maxLength: 200, description: 'NUMBER only: the unit `value` is in' })),
    ),
    timestamp: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'Required for TIMESTAMP elements: an ISO 8601 date or time (2025-04-01, 2025-04-01T10:00:00.5, 2025-04-01T10:00:00+02:00). Without an offset it is UTC; a date alone is midnight UTC',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SubmitValue = Static<typeof SubmitValue>;

export const SubmitBody = Type.Object(
  {
    year: Year,
    formId: Ref('The form; or give formMetadataKey and formMetadataValue'),
    formMetadataKey: Ref('Find the form by this metadata field…'),
    formMetadataValue: Ref('…having this value'),
    siteId: Ref('The site; or give siteMetadataKey and siteMetadataValue'),
    siteMetadataKey: Ref('Find the site by this metadata field…'),
    siteMetadataValue: Ref('…having this value'),
    values: Type.Array(SubmitValue, { maxItems: 5000 }),
  },
  { additionalProperties: false },
);
export type SubmitBody = Static<typeof SubmitBody>;

/** An activity as the answer of POST /form-submissions shows it, for ACTIVITY values. */
export const ActivitySummary = Type.Object({
  activityId: Uuid,
  input: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Input values by input name, as the activity definition’s `inputs` declare them',
  }),
  value: Type.Number(),
  metadata: Type.Record(Type.String(), Type.Unknown(), {
    description: 'What the calculation returned beside the value',
  }),
});
export type ActivitySummary = Static<typeof ActivitySummary>;

export const ValueItem = Type.Object({
  formElementSubmissionId: Uuid,
  elementId: Uuid,
  elementKey: Type.String(),
  periodUnit: Type.Integer(),
  timestamp: Nullable(DateTime),
  status: Status,
  value: Type.Unknown({ description: 'null when the value was deleted' }),
  originalValue: Type.Unknown({
    description: 'The value as sent, when it was converted from selectedUnitId',
  }),
  selectedUnitId: Nullable(Uuid),
  userId: Uuid,
  userName: Type.String(),
  userEmail: Type.String(),
  userImage: Nullable(Type.String()),
  recordedAt: DateTime,
  deletedAt: Nullable(DateTime),
  activities: Type.Optional(
    Type.Array(ActivitySummary, {
      description:
        'ACTIVITY values in the answer of POST /form-submissions: the activities of the list, in its order',
    }),
  ),
});
export type ValueItem = Static<typeof ValueItem>;

export const Submission = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  formSiteId: Uuid,
  formId: Uuid,
  siteId: Uuid,
  year: Type.Integer(),
  userId: Uuid,
  createdAt: DateTime,
  updatedAt: DateTime,
  deletedAt: Nullable(DateTime),
  values: Type.Array(ValueItem),
});
export type Submission = Static<typeof Submission>;

export const SubmissionsQuery = Type.Object(
  {
    formId: Type.Optional(Uuid),
    siteId: Type.Optional(Uuid),
    year: Type.Optional(Year),
    ...pageQuery('Submissions'),
  },
  { additionalProperties: false },
);
export type SubmissionsQuery = Static<typeof SubmissionsQuery>;

export const SubmissionPage = Type.Object({
  items: Type.Array(Submission),
  pagination: Pagination,
});

export const ReviewBody = Type.Object(
  {
    status: Type.Enum(['APPROVED', 'REJECTED']),
    comment: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type ReviewBody = Static<typeof ReviewBody>;

const Snapshot = Nullable(
  Type.Object({
    value: Type.Unknown(),
    originalValue: Type.Unknown(),
    selectedUnitId: Nullable(Uuid),
    status: Status,
  }),
);

export const HistoryEntry = Type.Object({
  id: Uuid,
  valueId: Uuid,
  action: Type.Enum(['CREATE', 'UPDATE', 'DELETE', 'REVIEW']),
  userId: Uuid,
  userName: Type.String(),
  userEmail: Type.String(),
  at: DateTime,
  before: Snapshot,
  after: Snapshot,
  comment: Nullable(Type.String()),
});
