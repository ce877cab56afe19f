import Type, { type Static } from 'typebox';
import { Pagination, pageQuery } from '../../http/paging.ts';
import { Uuid, Year } from '../../http/schemas.ts';
import { Submission } from '../values/index.ts';

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
    status: Type.Enum(['APPROVED', 'REJECTED'], { description: 'The review’s outcome' }),
    comment: Type.Optional(Type.String({ maxLength: 2000, description: 'Free text explaining the review' })),
  },
  { additionalProperties: false, examples: [{ status: 'APPROVED', comment: 'Matches the March invoice' }] },
);
export type ReviewBody = Static<typeof ReviewBody>;
