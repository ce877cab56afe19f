import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { callerOf } from '../../http/auth.ts';
import { idempotencyKey, REPLAYED_HEADER } from '../../http/idempotency.ts';
import { clientGone, tenantRun } from '../../http/request-scope.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import {
  CheckAnswer,
  checkValuesOf,
  HistoryEntry,
  Submission,
  SubmitAnswer,
  SubmitBody,
  ValueItem,
  valueHistory,
} from '../values/index.ts';
import { webhookEvents } from '../webhooks/index.ts';
import { requestKey } from './submissions.keys.ts';
import { reviewValue } from './submissions.review.ts';
import { ReviewBody, SubmissionPage, SubmissionsQuery } from './submissions.schemas.ts';
import { getSubmission, listSubmissions } from './submissions.service.ts';
import { storeValues } from './submissions.store.ts';

const TAGS = ['Form submissions'];

/** The optional Idempotency-Key of POST /form-submissions (decision 194). */
const SubmitHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    idempotencyKey(
      'Optional. 1-200 printable ASCII characters without spaces, unique per submission and user; reuse it unchanged on retries. Kept at least 24 hours.',
    ),
  ),
});

/** The 200 answer, with the header that marks a replayed one. */
const SubmitResponse = {
  ...SubmitAnswer,
  headers: {
    [REPLAYED_HEADER]: {
      type: 'string',
      enum: ['true'],
      description:
        'Present on the stored answer of an earlier request with the same Idempotency-Key and body, given again; nothing was written by this request',
    },
  },
};

export const submissionsRoutes: FastifyPluginAsyncTypebox<Services> = async (app, { pipeline }) => {
  app.post(
    '/form-submissions',
    {
      config: { minRole: 'COLLECTOR' },
      schema: {
        operationId: 'formSubmissions.submit',
        tags: TAGS,
        summary: 'Create or update the submission of a form, site and year (collectors)',
        description:
          'Name the form, the site and each value’s element by id or by a metadata field (elements also by key). Each value is stored by (element, periodUnit), or by (element, timestamp) for TIMESTAMP elements, whose periodUnit is the UTC month of the timestamp. `value: null` deletes. The request is all or nothing; the answer lists the values of this request in its order (a deletion shows `value: null` and `deletedAt`; deleting what holds no value changes nothing and is left out). TIMESTAMP times are ISO 8601; without an offset they are UTC. With an optional `Idempotency-Key`, retrying with the same key and the same body returns the stored answer with the header `Idempotent-Replayed: true` and writes nothing (also while the first is still running: the retry waits for it); the same key with another body is 409 CONFLICT. Keys are the caller’s own and are kept at least 24 hours. A request refused (400, 403, 409) or failed keeps no key: a retry with the same key runs afresh.',
        headers: SubmitHeaders,
        body: SubmitBody,
        response: { 200: SubmitResponse, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const key = requestKey(request.headers['idempotency-key'], request.body);
      const answer = await storeValues(
        pipeline,
        tenantRun(request),
        callerOf(request),
        request.body,
        clientGone(request, reply),
        key,
      );
      if (answer.replayed) reply.header(REPLAYED_HEADER, 'true');
      // Only a 200 is stored with a key (a refusal keeps none).
      return reply.code(answer.status as 200).send(answer.body);
    },
  );

  app.post(
    '/form-submissions/check',
    {
      config: { minRole: 'COLLECTOR' },
      schema: {
        operationId: 'formSubmissions.check',
        tags: TAGS,
        summary: 'Check a submission without storing it (collectors)',
        description:
          'Takes the body of `POST /form-submissions` and runs every check a submission of it would meet (each value’s type, the element’s rules, unknown elements, activity inputs, period locks) and the outlier check, then stores nothing: no value, history, activity or total is written. The answer lists every finding: `invalid` ones would refuse the submission, `outlier` ones would not. Activities’ calculations are not run (their inputs are checked). What refuses a submission as a whole answers the same here: 400 for a body that names no usable form, site or active year, 403 for a site you cannot report for.',
        body: SubmitBody,
        response: { 200: CheckAnswer, ...errors(400, 401, 403) },
      },
    },
    (request, reply) =>
      checkValuesOf(
        pipeline,
        tenantRun(request),
        callerOf(request),
        request.body,
        clientGone(request, reply),
      ),
  );

  app.get(
    '/form-submissions',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'formSubmissions.list',
        tags: TAGS,
        summary: 'List submissions, with their current values, on the sites you can read',
        description:
          'Ordered by year (latest first), then form id, then site id: a submission is unique per form, site and year, so the order is total and pages neither overlap nor skip. `pagination.total` counts every submission matching the filters. An unknown formId or siteId is a 400.',
        querystring: SubmissionsQuery,
        response: { 200: SubmissionPage, ...errors(400, 401) },
      },
    },
    (request) => request.tenant((tx, caller) => listSubmissions(tx, caller, request.query)),
  );

  app.get(
    '/form-submissions/:id',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'formSubmissions.get',
        tags: TAGS,
        summary: 'Get a submission with all its current values',
        params: IdParams,
        response: { 200: Submission, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getSubmission(tx, caller, request.params.id)),
  );

  app.post(
    '/form-submissions/values/:id/review',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'formSubmissions.reviewValue',
        tags: TAGS,
        summary: 'Approve or reject a value (managers of its site)',
        description:
          '`{id}` is the value’s `formElementSubmissionId` (as each value of a submission shows it), not the submission’s id. The review and its comment join the value’s history. Writing the value again makes it COMPLETED.',
        params: IdParams,
        body: ReviewBody,
        response: { 200: ValueItem, ...errors(400, 401, 403, 404) },
      },
    },
    (request) =>
      request.tenant(async (tx, caller) => {
        const value = await reviewValue(tx, caller, request.params.id, request.body);
        await webhookEvents.valueReviewed(tx, caller.organizationId, value, request.body.comment ?? null);
        return value;
      }),
  );

  app.get(
    '/form-submissions/values/:id/history',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'formSubmissions.valueHistory',
        tags: TAGS,
        summary: 'Every change of a value, oldest first (also of deleted values)',
        description: '`{id}` is the value’s `formElementSubmissionId`.',
        params: IdParams,
        response: { 200: Type.Array(HistoryEntry), ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => valueHistory(tx, caller, request.params.id)),
  );
};
