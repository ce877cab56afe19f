import Type, { type Static, type TSchema } from 'typebox';
import { EXAMPLE_IDS } from '../../http/examples.ts';
import { DateTime, Nullable, Uuid, Year } from '../../http/schemas.ts';
import { ValueCheck } from './values.check.schemas.ts';

export const VALUE_STATUSES = ['COMPLETED', 'APPROVED', 'REJECTED'] as const;
export const ValueStatusSchema = Type.Enum([...VALUE_STATUSES]);

const Ref = (description: string, examples?: string[]) =>
  Type.String({ minLength: 1, maxLength: 1000, description, ...(examples ? { examples } : {}) });

const valueFields = {
  periodUnit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 12,
      examples: [3],
      description:
        'YEARLY forms: 1; QUARTERLY: 1..4; MONTHLY: 1..12. Derived from the timestamp for TIMESTAMP elements',
    }),
  ),
  value: Type.Unknown({
    description:
      'Checked against the element’s type: a number, a text, true/false, an option’s value, a date `YYYY-MM-DD`, or for ACTIVITY elements a list of input objects. null deletes the value (for TIMESTAMP elements: the record of that timestamp)',
    examples: [12500],
  }),
  selectedUnitId: Type.Optional(
    Type.Union(
      [
        Type.String({
          maxLength: 200,
          description: 'NUMBER only: the unit `value` is in; it is converted to the element’s unit',
        }),
        Type.Null(),
      ],
      {
        examples: [null],
        description: 'NUMBER only: the unit `value` is in (null or left out: the element’s unit)',
      },
    ),
  ),
  comment: Type.Optional(
    Type.String({
      maxLength: 2000,
      description:
        'Why the value is what it is, for reviewers (e.g. an outlier explained: a value with a comment counts as acknowledged). Kept with the change in the value’s history; a value that does not change records nothing, so neither is its comment',
      examples: ['New furnace commissioned in March'],
    }),
  ),
  timestamp: Type.Optional(
    Type.Union(
      [
        Type.String({
          maxLength: 100,
          description:
            'Required for TIMESTAMP elements: an ISO 8601 date or time (2025-04-01, 2025-04-01T10:00:00.5, 2025-04-01T10:00:00+02:00). Without an offset it is UTC; a date alone is midnight UTC',
        }),
        Type.Null(),
      ],
      {
        examples: [null],
        description:
          'TIMESTAMP elements only (required there): an ISO 8601 date or time; null or left out for other elements',
      },
    ),
  ),
};

const ElementById = { elementId: Ref('The element’s id') };
const ElementByKey = { elementKey: Ref('The element’s key in the form', ['electricity']) };
const ElementByMetadata = {
  elementMetadataKey: Ref('Find the element by this metadata field…', ['erpCode']),
  elementMetadataValue: Ref('…having this value', ['NG']),
};

/**
 * One value. Its element is named one way: by `elementId`, by `elementKey`, or by
 * `elementMetadataKey` and `elementMetadataValue`; each way is one alternative of the schema,
 * so generated bodies (Swagger UI) name it once.
 */
export const SubmitValue = Type.Union(
  [
    Type.Object(
      { ...ElementByKey, ...valueFields },
      { additionalProperties: false, title: 'Element by key' },
    ),
    Type.Object({ ...ElementById, ...valueFields }, { additionalProperties: false, title: 'Element by id' }),
    Type.Object(
      { ...ElementByMetadata, ...valueFields },
      { additionalProperties: false, title: 'Element by metadata' },
    ),
  ],
  {
    'x-expected':
      'name its element one way only: elementId, elementKey, or elementMetadataKey and elementMetadataValue',
  },
);
/** A value as the service reads it: the alternatives as optional fields. */
export type SubmitValue = Static<typeof valueShape>;
const valueShape = Type.Object({
  ...valueFields,
  elementId: Type.Optional(ElementById.elementId),
  elementKey: Type.Optional(ElementByKey.elementKey),
  elementMetadataKey: Type.Optional(ElementByMetadata.elementMetadataKey),
  elementMetadataValue: Type.Optional(ElementByMetadata.elementMetadataValue),
});

const FormById = { formId: Ref('The form', [EXAMPLE_IDS.form]) };
const FormByMetadata = {
  formMetadataKey: Ref('Find the form by this metadata field…', ['code']),
  formMetadataValue: Ref('…having this value', ['ENERGY']),
};
const SiteById = { siteId: Ref('The site', [EXAMPLE_IDS.site]) };
const SiteByMetadata = {
  siteMetadataKey: Ref('Find the site by this metadata field…', ['erp']),
  siteMetadataValue: Ref('…having this value', ['S-100']),
};
const submitFields = {
  year: Year,
  values: Type.Array(SubmitValue, {
    maxItems: 5000,
    description: 'The values to record, each for one period',
  }),
};
const submitBranch = (title: string, form: Record<string, TSchema>, site: Record<string, TSchema>) =>
  Type.Object({ ...form, ...site, ...submitFields }, { additionalProperties: false, title });

const SUBMIT_BY_IDS = {
  formId: EXAMPLE_IDS.form,
  siteId: EXAMPLE_IDS.site,
  year: 2025,
  values: [
    { elementKey: 'electricity', periodUnit: 3, value: 12500 },
    { elementKey: 'natural_gas', periodUnit: 3, value: 4.2, selectedUnitId: EXAMPLE_IDS.unitMwh },
    { elementKey: 'heating_source', periodUnit: 3, value: 'heat_pump' },
    { elementKey: 'business_travel', periodUnit: 3, value: [{ distanceKm: 420, mode: 'train' }] },
  ],
};
const SUBMIT_BY_METADATA = {
  formMetadataKey: 'code',
  formMetadataValue: 'ENERGY',
  siteMetadataKey: 'erp',
  siteMetadataValue: 'S-100',
  year: 2025,
  values: [{ elementMetadataKey: 'erpCode', elementMetadataValue: 'NG', periodUnit: 4, value: 3800 }],
};

/**
 * The form is named by `formId` or by `formMetadataKey` and `formMetadataValue`, the site by
 * `siteId` or by `siteMetadataKey` and `siteMetadataValue`: one alternative per combination.
 */
export const SubmitBody = Type.Union(
  [
    submitBranch('Form and site by id', FormById, SiteById),
    submitBranch('Form by id, site by metadata', FormById, SiteByMetadata),
    submitBranch('Form by metadata, site by id', FormByMetadata, SiteById),
    submitBranch('Form and site by metadata', FormByMetadata, SiteByMetadata),
  ],
  {
    'x-expected':
      'name the form one way (formId, or formMetadataKey and formMetadataValue) and the site one way (siteId, or siteMetadataKey and siteMetadataValue)',
    examples: [SUBMIT_BY_IDS, SUBMIT_BY_METADATA],
  },
);
/** A body as the service reads it: the alternatives as optional fields. */
export type SubmitBody = Static<typeof bodyShape>;
const bodyShape = Type.Object({
  year: Year,
  values: Type.Array(valueShape),
  formId: Type.Optional(FormById.formId),
  formMetadataKey: Type.Optional(FormByMetadata.formMetadataKey),
  formMetadataValue: Type.Optional(FormByMetadata.formMetadataValue),
  siteId: Type.Optional(SiteById.siteId),
  siteMetadataKey: Type.Optional(SiteByMetadata.siteMetadataKey),
  siteMetadataValue: Type.Optional(SiteByMetadata.siteMetadataValue),
});

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
  formElementSubmissionId: {
    ...Uuid,
    description: 'The id of this value (used by the review route `/values/{id}`)',
  },
  elementId: { ...Uuid, description: 'The element the value answers' },
  elementKey: Type.String({ description: 'The element’s key' }),
  periodUnit: Type.Integer({ description: 'The period within the year (1 for YEARLY forms)' }),
  timestamp: Nullable(DateTime),
  status: { ...ValueStatusSchema, description: 'COMPLETED when recorded; APPROVED or REJECTED after review' },
  value: Type.Unknown({ description: 'null when the value was deleted' }),
  originalValue: Type.Unknown({
    description: 'The value as sent, when it was converted from selectedUnitId',
  }),
  selectedUnitId: Nullable(Uuid),
  userId: Uuid,
  userName: Type.String({ description: 'Who recorded it' }),
  userEmail: Type.String({ description: 'Who recorded it' }),
  userImage: Nullable(Type.String()),
  recordedAt: { ...DateTime, description: 'When it was recorded' },
  deletedAt: Nullable(DateTime),
  activities: Type.Optional(
    Type.Array(ActivitySummary, {
      description:
        'Only in the answer of POST /form-submissions, for ACTIVITY values: the activities of the list, in its order. GET /form-submissions and the other reads leave it out; read them with GET /activities (formId, key, siteId, year, periodUnits).',
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

const Snapshot = Nullable(
  Type.Object({
    value: Type.Unknown(),
    originalValue: Type.Unknown(),
    selectedUnitId: Nullable(Uuid),
    status: ValueStatusSchema,
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

export const SubmitAnswer = Type.Object({
  ...Submission.properties,
  issues: Type.Array(ValueCheck, {
    description:
      'What the values were checked for but did not stop them: outliers (a value far from the same element’s earlier values). Always present; empty when there is none. Each was stored anyway; `acknowledged` says whether it came with a comment',
  }),
});
export type SubmitAnswer = Static<typeof SubmitAnswer>;
