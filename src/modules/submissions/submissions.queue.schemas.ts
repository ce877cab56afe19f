import Type, { type Static } from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
import { DateTime, Nullable, Uuid, Year } from '../../http/schemas.ts';
import { ValueStatusSchema } from '../values/index.ts';

/** Page size of the review queue when the query leaves it out, and its largest. */
export const QUEUE_PAGE = { default: 50, max: 500 } as const;
/** The most values one bulk review may name. */
export const MAX_BULK_REVIEW = 500;

export const QueueQuery = Type.Object(
  {
    status: Type.Optional({
      ...ValueStatusSchema,
      description: 'Only values with this status (COMPLETED: awaiting review). Left out: every status',
    }),
    formId: Type.Optional({ ...Uuid, description: 'Only values of this form' }),
    siteId: Type.Optional({ ...Uuid, description: 'Only values of this site (not its sub-sites)' }),
    year: Type.Optional(Year),
    periodUnit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 12, description: 'Only values of this period of the year' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: QUEUE_PAGE.max,
        default: QUEUE_PAGE.default,
        description: `Page size (1-${QUEUE_PAGE.max})`,
      }),
    ),
    after: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'The `nextCursor` of the previous page: the page starts after the value it names',
      }),
    ),
  },
  { additionalProperties: false },
);
export type QueueQuery = Static<typeof QueueQuery>;

const LastReview = Nullable(
  Type.Object(
    {
      status: Type.Enum(['APPROVED', 'REJECTED']),
      comment: Nullable(Type.String()),
      userName: Type.String({ description: 'Who reviewed it' }),
      at: DateTime,
    },
    { description: 'The latest review of the value (also one made before it was written again)' },
  ),
);

const FileSummary = Nullable(
  Type.Object(
    {
      mediaId: Uuid,
      fileName: Type.String(),
      size: Nullable(Type.Integer({ description: 'Stored bytes (null while the upload is pending)' })),
      contentType: Type.String(),
    },
    { description: 'FILE values: the file the value names (download it through GET /media/{mediaId})' },
  ),
);

export const QueueItem = Type.Object({
  formElementSubmissionId: { ...Uuid, description: 'The value’s id (for the review routes)' },
  formId: Uuid,
  formName: Type.String(),
  periodType: Type.Enum(['MONTHLY', 'QUARTERLY', 'YEARLY']),
  siteId: Uuid,
  siteName: Type.String(),
  year: Type.Integer(),
  periodUnit: Type.Integer({ description: 'The period within the year (1 for YEARLY forms)' }),
  timestamp: Nullable(DateTime),
  elementId: Uuid,
  elementKey: Type.String(),
  elementLabel: Type.String(),
  elementType: Type.String({
    description: 'NUMBER, TEXT, BOOLEAN, SELECT, DATE, TIMESTAMP, FILE or ACTIVITY',
  }),
  status: ValueStatusSchema,
  value: Type.Unknown({
    description: 'As stored: a number, text, boolean, option value, date, media id or activity list',
  }),
  originalValue: Type.Unknown({
    description: 'The value as sent, when it was converted from selectedUnitId',
  }),
  selectedUnitId: Nullable(Uuid),
  activityCount: Type.Integer({
    description: 'ACTIVITY values: how many activities the value holds (0 otherwise)',
  }),
  userId: { ...Uuid, description: 'Who recorded it' },
  userName: Type.String(),
  userEmail: Type.String(),
  recordedAt: DateTime,
  lastReview: LastReview,
  file: FileSummary,
});
export type QueueItem = Static<typeof QueueItem>;

export const QueuePage = Type.Object(
  {
    items: Type.Array(QueueItem),
    total: Type.Integer({ description: 'Values matching the filters in all pages' }),
    nextCursor: Nullable(
      Type.String({ description: 'Pass as `after` for the next page; null on the last page' }),
    ),
  },
  {
    examples: [
      {
        items: [
          {
            formElementSubmissionId: EXAMPLE_IDS.value,
            formId: EXAMPLE_IDS.form,
            formName: 'Energy',
            periodType: 'MONTHLY',
            siteId: EXAMPLE_IDS.site,
            siteName: 'Lyon plant',
            year: 2025,
            periodUnit: 3,
            timestamp: null,
            elementId: '5a1d0c44-8e6b-4d3a-b2f1-0c9e8d7a6b51',
            elementKey: 'electricity',
            elementLabel: 'Electricity',
            elementType: 'NUMBER',
            status: 'COMPLETED',
            value: 12500,
            originalValue: null,
            selectedUnitId: null,
            activityCount: 0,
            userId: '7c6b5a49-3821-4f0e-9d8c-7b6a5f4e3d21',
            userName: 'Ana Collector',
            userEmail: 'ana@example.com',
            recordedAt: '2025-04-02T08:15:00.000Z',
            lastReview: null,
            file: null,
          },
        ],
        total: 1,
        nextCursor: null,
      },
    ],
  },
);

export type QueuePage = Static<typeof QueuePage>;

export const BulkReviewBody = Type.Object(
  {
    ids: Type.Array(Uuid, {
      minItems: 1,
      maxItems: MAX_BULK_REVIEW,
      uniqueItems: true,
      description: `The values’ ids (formElementSubmissionId), at most ${MAX_BULK_REVIEW}`,
    }),
    status: Type.Enum(['APPROVED', 'REJECTED'], { description: 'The outcome for every value named' }),
    comment: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'Why; required (not blank) to reject: the collector reads it beside the values',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { ids: [EXAMPLE_IDS.value], status: 'APPROVED' },
      {
        ids: [EXAMPLE_IDS.value],
        status: 'REJECTED',
        comment: 'The March meter reading is 1,250 kWh, not 12,500: please check the invoice',
      },
    ],
  },
);
export type BulkReviewBody = Static<typeof BulkReviewBody>;

export const BulkReviewResult = Type.Object(
  {
    status: Type.Enum(['APPROVED', 'REJECTED']),
    reviewed: Type.Integer({ description: 'Values whose status changed (a review joined their history)' }),
    unchanged: Type.Integer({ description: 'Values that already had this status: left as they were' }),
    mailed: Type.Integer({
      description:
        'Rejections: e-mails queued (sent once the review is stored), one per person who recorded rejected values',
    }),
    notMailed: Type.Integer({
      description: 'Rejections: people not e-mailed because they reached the daily cap of rejection e-mails',
    }),
  },
  { examples: [{ status: 'REJECTED', reviewed: 2, unchanged: 0, mailed: 1, notMailed: 0 }] },
);
export type BulkReviewResult = Static<typeof BulkReviewResult>;
