import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { BulkReviewBody, BulkReviewResult, QueuePage, QueueQuery } from './submissions.queue.schemas.ts';
import { listQueue, MAX_REJECTION_MAILS_PER_DAY, reviewValues } from './submissions.queue.ts';

const TAGS = ['Form submissions'];

/** The review queue across forms and sites, and reviews of many values at once. */
export const submissionsQueueRoutes: FastifyPluginAsyncTypebox<Services> = async (app, { config }) => {
  const publicUrl = config.publicUrl;
  app.get(
    '/form-submissions/values',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'formSubmissions.listValues',
        tags: TAGS,
        summary: 'List values across forms and sites, oldest first (the review queue)',
        description:
          'The live values on the sites you can read, ordered by when they were recorded (oldest first), then by id. `status=COMPLETED` lists what awaits review; `status=REJECTED` what was sent back to be corrected. Each item names its form, site, period and element, carries its latest review (with the comment) and, for FILE values, the file’s name and size. Pages are read by keyset: pass `nextCursor` as `after`; a value recorded while you page is not skipped if it sorts after your position. `total` counts every value matching the filters.',
        querystring: QueueQuery,
        response: { 200: QueuePage, ...errors(400, 401) },
      },
    },
    (request) => request.tenant((tx, caller) => listQueue(tx, caller, request.query)),
  );

  app.post(
    '/form-submissions/values/review',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'formSubmissions.reviewValues',
        tags: TAGS,
        summary: 'Approve or reject many values at once (managers of their sites)',
        description: `All or nothing: every id must be a live value on a site you manage (an id you cannot read is a 404 naming \`ids.N\`, one on a site you read but do not manage a 403), else nothing changes. Values that already have the status are left as they are; each changed value gets a review, with the comment, in its history. Rejecting needs a comment. Each person who recorded rejected values gets one e-mail for the request, listing the values by form, site and period with a link to correct them, unless they got ${MAX_REJECTION_MAILS_PER_DAY} rejection e-mails in the last 24 hours (then the rejection shows only on their home screen). The e-mails are queued with the review and sent once it is stored, retried for hours when the mail server fails; \`mailed\` counts the e-mails queued. A \`value.reviewed\` webhook event lists the values whose status changed.`,
        body: BulkReviewBody,
        response: { 200: BulkReviewResult, ...errors(400, 401, 403, 404) },
      },
    },
    (request) =>
      request.tenant((tx, caller) =>
        reviewValues(tx, caller, request.body, { now: app.clock(), ...(publicUrl ? { publicUrl } : {}) }),
      ),
  );
};
