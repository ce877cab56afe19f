import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../domain/errors.ts';
import { callerOf } from '../../http/auth.ts';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { MailDeliveryError } from '../../mail/mailer.ts';
import { accountBudget, withRetryAfter } from '../auth/index.ts';
import {
  AcceptBody,
  AcceptResult,
  DescribeBody,
  InvitationDescription,
  InvitationResult,
  InviteBody,
} from './invitations.schemas.ts';
import { acceptInvitation, describeInvitation, inviteMember } from './invitations.service.ts';

export const invitationsRoutes: FastifyPluginAsyncTypebox<Services> = async (
  app,
  { database, config, mailer, clock },
) => {
  const budget = accountBudget(database, config);
  app.post(
    '/organizations/current/invitations',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'invitations.create',
        tags: ['Organization'],
        summary: 'Invite someone by e-mail (managers and owners)',
        description:
          'Creates a pending membership with the role and sites and e-mails a link valid for 7 days. Only owners invite owners; managers invite managers, collectors and viewers to sites within their scope. A pending invitation for the same e-mail, or an existing member, is refused with `success: false`; an expired invitation is replaced.',
        body: InviteBody,
        response: { 200: InvitationResult, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      try {
        return await inviteMember({ database, mailer, config }, caller, request.body);
      } catch (err) {
        if (!(err instanceof MailDeliveryError)) throw err;
        request.log.error({ err }, 'invitation e-mail not sent');
        throw new AppError(
          'INTERNAL_SERVER_ERROR',
          'The invitation e-mail could not be sent, so nothing was saved',
        );
      }
    },
  );

  app.post(
    '/invitations/accept',
    {
      config: { public: true },
      schema: {
        operationId: 'invitations.accept',
        tags: ['Organization'],
        summary: 'Accept an invitation and receive an access token (no credential needed)',
        description:
          'A new account takes the name and password given; an e-mail that already has an account confirms with that account’s password. Unknown, used or expired tokens are refused with `success: false`. The password of an existing account counts on that account’s attempt budget, together with its sign-ins (see `POST /auth/login`): past the budget, 429 with Retry-After before the password is checked, and the account’s owner is told by e-mail.',
        security: [],
        body: AcceptBody,
        response: { 200: AcceptResult, ...errors(400, 429) },
      },
    },
    (request, reply) =>
      acceptInvitation(database, config, { budget, clock, mailer, log: request.log }, request.body).catch(
        (error) => withRetryAfter(reply, error),
      ),
  );

  app.post(
    '/invitations/describe',
    {
      config: { public: true },
      schema: {
        operationId: 'invitations.describe',
        tags: ['Organization'],
        summary: 'What an invitation link is about (no credential needed)',
        description:
          'For the page an invitation e-mail opens: the organization, and while the invitation is open the invited address, the role, who invited and whether the address already has an account. The token travels in the body, not in an address. An unknown token is a 404; an accepted or expired invitation names only its organization.',
        security: [],
        body: DescribeBody,
        response: { 200: InvitationDescription, ...errors(400, 404) },
      },
    },
    async (request) => {
      const found = await describeInvitation(database, request.body.token);
      if (!found)
        throw new AppError('NOT_FOUND', 'This invitation link is not valid; ask for a new invitation');
      return found;
    },
  );
};
