import Type, { type Static } from 'typebox';
import { DateTime, ErrorBody, errorAnswer, Nullable, Uuid } from '../../http/schemas.ts';

/** The kinds of record a file may be attached to (spec 4.10). */
export const ENTITY_TYPES = [
  'Organization',
  'User',
  'FormSubmission',
  'FormElementSubmission',
  'ReportTemplate',
  'ComplianceCheck',
  'Activity',
  'FormElement',
  'FormSite',
  'ReportSection',
  'Report',
  'ReportSectionTemplateExample',
  'AiConversation',
] as const;

export const PresignBody = Type.Object(
  {
    fileName: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'The file’s name; kept for downloads',
    }),
    entityId: Type.String({ minLength: 1, maxLength: 200, description: 'The record the file belongs to' }),
    fieldName: Type.String({ minLength: 1, maxLength: 200, description: 'The field of that record' }),
    fileSize: Type.Integer({ minimum: 1, description: 'Size in bytes (the upload may not be larger)' }),
    contentType: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Derived from the extension when not sent' }),
    ),
    entityType: Type.Optional(Type.Union(ENTITY_TYPES.map((t) => Type.Literal(t)))),
  },
  {
    additionalProperties: false,
    examples: [
      {
        fileName: 'electricity-invoice-2024-01.pdf',
        fileSize: 48213,
        entityType: 'FormSubmission',
        entityId: 'plant-1-2024',
        fieldName: 'invoice',
      },
    ],
  },
);
export type PresignBody = Static<typeof PresignBody>;

export const PresignResult = Type.Object({
  url: Type.String({ description: 'POST the fields, then `file`, as multipart/form-data here' }),
  fields: Type.Record(Type.String(), Type.String()),
  mediaId: Uuid,
  mediaKey: Type.String(),
});

export const Media = Type.Object({
  id: Uuid,
  fileName: Type.String(),
  contentType: Type.String(),
  size: Nullable(Type.Integer({ description: 'Stored bytes (null while pending)' })),
  sha256: Nullable(Type.String({ description: 'SHA-256 of the stored bytes, hex' })),
  status: Type.Union([Type.Literal('pending'), Type.Literal('uploaded')]),
  entityType: Nullable(Type.String()),
  entityId: Type.String(),
  fieldName: Type.String(),
  createdAt: DateTime,
  uploadedAt: Nullable(DateTime),
  uploadedBy: Nullable(Uuid),
  downloadUrl: Nullable(Type.String({ description: 'Valid 5 minutes; null while pending' })),
  downloadUrlExpiresAt: Nullable(DateTime),
});
export type Media = Static<typeof Media>;

/** S3's error document, as the upload endpoint answers it. */
const s3Error = (description: string, code: string, message: string) => ({
  description,
  content: {
    'application/xml': {
      schema: Type.String({
        description: '`<Error><Code>…</Code><Message>…</Message><RequestId>…</RequestId></Error>`',
      }),
      example: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>req-1</RequestId></Error>`,
    },
  },
});

/** What POST /media/upload answers: S3's statuses and XML documents (400 also as JSON before the form is read). */
export const UPLOAD_RESPONSES = {
  200: { description: 'Stored (`success_action_status` 200); no body', type: 'null' },
  201: {
    description: 'Stored (`success_action_status` 201): S3’s PostResponse',
    headers: { etag: Type.String({ description: 'The SHA-256 of the file, quoted' }) },
    content: {
      'application/xml': {
        schema: Type.String({
          description: '`<PostResponse><Location/><Bucket/><Key/><ETag/></PostResponse>`',
        }),
      },
    },
  },
  204: { description: 'Stored (the default `success_action_status`); no body', type: 'null' },
  400: {
    description: 'A malformed form, a file too small or too large, an invalid policy',
    content: {
      ...s3Error('', 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size').content,
      // Before the form is read: an unknown query parameter, a body that is not multipart.
      'application/json': {
        schema: ErrorBody,
        example: {
          code: 'BAD_REQUEST',
          message: 'Invalid input data',
          issues: [{ path: 'query.sort', message: 'query.sort is not an allowed property' }],
        },
      },
    },
  },
  403: s3Error(
    'A wrong signature, an expired or withdrawn policy, a field outside it',
    'AccessDenied',
    'Invalid according to Policy: Policy expired.',
  ),
  404: s3Error(
    'Files are stored in S3: upload to the URL POST /media/presigned-url returns',
    'NoSuchBucket',
    'Files are stored in S3',
  ),
  412: s3Error(
    'A file was already uploaded under this key',
    'PreconditionFailed',
    'An object was already uploaded under this key; ask for a new upload URL',
  ),
};

/** Who sees a file, said once for the descriptions of the media routes. */
export const WHO_SEES_A_FILE =
  'A file attached to a value (the FILE value of a form) belongs to that value’s site: members who may read the site see it. A file attached to no value belongs to the person who uploaded it, to owners, and to managers whose sites cover the whole organization. Any other file is answered as one that does not exist (404), whether it exists or not.';

/** The 404 of the routes that name a file: unknown, another organization's, or not the caller's to see. */
export const MEDIA_NOT_FOUND = errorAnswer(
  'No such file in the caller’s organization, or one the caller may not see (attached on a site outside their sites, or another person’s file attached nowhere): the answer is the same',
  'NOT_FOUND',
  'Media not found',
);

/** The 403 of DELETE /media/{id}. */
export const MEDIA_DELETE_FORBIDDEN = errorAnswer(
  'A viewer (“This needs the COLLECTOR role or higher; your role is VIEWER”), or a collector deleting a file they see on one of their sites but did not upload (the example)',
  'FORBIDDEN',
  'Only the person who uploaded this file or a manager may delete it',
);
