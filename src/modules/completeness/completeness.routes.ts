import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import {
  CompletenessQuery,
  CompletenessReport,
  RemindersBody,
  RemindersResult,
} from './completeness.schemas.ts';
import { getCompleteness, sendReminders } from './completeness.service.ts';

const TAGS = ['Completeness'];

export const completenessRoutes: FastifyPluginAsyncTypebox<Services> = async (app, { config }) => {
  const publicUrl = config.publicUrl;
  app.get(
    '/completeness',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'completeness.get',
        tags: TAGS,
        summary: 'Who has reported a form’s periods of a year, what is missing, what is late',
        description:
          'For each active site of the form in the year (on the sites you can read; one page of sites, by name) and each period: the expected elements (the form’s required elements, or all of them when none is required), how many are reported (values not REJECTED; an ACTIVITY element counts with activities or a no-activity marker), the status (COMPLETE, PARTIAL, MISSING, or NO_ACTIVITY when complete through no-activity markers only), when it was last reported, when it is due (`dueDays` after the end of the period, UTC), whether it was complete on time and whether it is overdue. Totals per site and for the whole scope follow DHIS2: expectedReports (site × period), actualReports (COMPLETE or NO_ACTIVITY), onTimeReports, rate and onTimeRate in percent.',
        querystring: CompletenessQuery,
        response: { 200: CompletenessReport, ...errors(400, 401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getCompleteness(tx, caller, request.query, app.clock())),
  );

  app.post(
    '/completeness/reminders',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'completeness.remind',
        tags: TAGS,
        summary: 'E-mail the collectors of the sites that have not reported a period (managers)',
        description:
          'Each collector assigned to a site (of your scope, or of `siteIds`) that is MISSING or PARTIAL for the period gets one e-mail listing, per site, the elements still missing. A person already reminded of this form period in the last 24 hours, or of 5 form periods in all, is not e-mailed again (also when several calls run at once). The e-mails are queued with the log of reminders and sent once it is stored, retried for hours when the mail server fails. Answers how many people were reminded.',
        body: RemindersBody,
        response: { 200: RemindersResult, ...errors(400, 401, 403) },
      },
    },
    (request) =>
      request.tenant((tx, caller) =>
        sendReminders(tx, caller, request.body, { now: app.clock(), ...(publicUrl ? { publicUrl } : {}) }),
      ),
  );
};
