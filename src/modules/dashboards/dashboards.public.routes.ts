import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { MailDeliveryError } from '../../mail/mailer.ts';
import { attemptBudget } from '../auth/index.ts';
import { RetryLater, requestAccess } from './dashboards.access.ts';
import { AccessBody, CodeSent, DashboardViewSchema, Grant, PublicQuery } from './dashboards.schemas.ts';
import { pickedSites, publicView } from './dashboards.view.ts';

const TAGS = ['Public dashboards'];

/** The 401 of a gated dashboard, documented with the gates it names. */
const gate401 = (message: string) =>
  ({
    ...errors(401)[401],
    description: 'A gate applies and no valid grant (or a wrong password or code) was presented',
    examples: [{ code: 'UNAUTHORIZED', message, issues: [], requiresPassword: true, requiresEmail: false }],
  }) as TSchema;

const bearerOf = (request: FastifyRequest) =>
  /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];

export const publicDashboardsRoutes: FastifyPluginAsyncTypebox<Services> = async (
  app,
  { database, mailer, clock, config },
) => {
  const budget = attemptBudget(database, 'dashboard', {
    budget: config.dashboardAttemptBudget,
    maxDelaySeconds: config.attemptBackoffMaxSeconds,
    quietMs: config.attemptBudgetQuietMinutes * 60_000,
  });
  app.get(
    '/public/dashboards/:id',
    {
      config: { public: true },
      schema: {
        operationId: 'publicDashboards.get',
        tags: TAGS,
        summary: 'Open a public dashboard (no account needed)',
        description:
          'Answers the dashboard, its widgets and every widget’s data over the dashboard’s filter (all the organization’s sites within it). A dashboard with a password or an e-mail list answers 401 with `requiresPassword` and `requiresEmail` until a grant from POST /public/dashboards/{id}/access is sent as `Authorization: Bearer <accessToken>`. A private, deleted or unknown dashboard: 404. With `publicCanFilterSites`, `siteIds` narrows the sites (each within the filter, else 400). Answers are cached a few seconds per dashboard and site choice (`computedAt`).',
        params: IdParams,
        querystring: PublicQuery,
        response: {
          200: DashboardViewSchema,
          ...errors(400, 401, 404),
          401: gate401('This dashboard needs an access grant'),
        },
      },
    },
    (request) =>
      publicView(
        { database, clock },
        request.params.id,
        bearerOf(request),
        pickedSites(request.query.siteIds),
      ),
  );

  app.post(
    '/public/dashboards/:id/access',
    {
      config: { public: true },
      schema: {
        operationId: 'publicDashboards.access',
        tags: TAGS,
        summary: 'Get a grant to open a gated public dashboard (no account needed)',
        description:
          'Password gate: send `password` (200: a grant). E-mail gate: send `email` (an address on the list or of a listed domain); a 6-digit code is mailed (202), valid 10 minutes and once; then send `email` and `code` (and `password` if the dashboard has both gates): 200. The grant opens this dashboard only, for one hour, and ends when the password or the lists change. Wrong password or code: 401; address not allowed: 403; ' +
          `every request counts as an attempt of its client address, and a success clears that count: the 11th attempt from one address within 15 minutes is 429 with Retry-After. Wrong passwords are also counted per dashboard, from all addresses together: after ${config.dashboardAttemptBudget} attempts without a pause of ${config.attemptBudgetQuietMinutes} minutes (SDCS_DASHBOARD_ATTEMPT_BUDGET), each further password attempt waits 1, 2, 4, … seconds, at most ${config.attemptBackoffMaxSeconds} (429 with Retry-After); a right password works once the wait is over and gives its attempt back, and the organization's owners are told by e-mail (at most once a day).` +
          ' An e-mail address has one live code at a time (a new one voids the older); a code is voided after 3 wrong guesses, and after 5 wrong codes for one address within 15 minutes, from any client addresses, its codes are voided and further requests for it are 429.',
        params: IdParams,
        body: AccessBody,
        response: {
          200: Grant,
          202: CodeSent,
          ...errors(400, 401, 403, 404, 429),
          401: gate401('Wrong password'),
        },
      },
    },
    async (request, reply) => {
      try {
        const outcome = await requestAccess(
          { database, mailer, clock, budget, log: request.log },
          request.params.id,
          request.body,
          request.ip,
        );
        return reply.status(outcome.status).send(outcome.body);
      } catch (err) {
        if (err instanceof RetryLater) reply.header('retry-after', String(err.retryAfter));
        if (!(err instanceof MailDeliveryError)) throw err;
        request.log.error({ err }, 'dashboard access code not sent');
        throw new AppError('INTERNAL_SERVER_ERROR', 'The code could not be e-mailed; try again later');
      }
    },
  );
};
