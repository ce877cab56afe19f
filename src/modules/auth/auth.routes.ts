import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { callerOf } from '../../http/auth.ts';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { accountBudget } from './account-password.ts';
import { withRetryAfter } from './attempt-budget.ts';
import {
  LoginBody,
  LoginResponse,
  MePatchBody,
  MeResponse,
  SignupBody,
  SignupResponse,
} from './auth.schemas.ts';
import { describeCaller, login, logout, setCallerLocale, signup } from './auth.service.ts';

export const authRoutes: FastifyPluginAsyncTypebox<Services> = async (
  app,
  { database, config, mailer, clock },
) => {
  const budget = accountBudget(database, config);
  app.post(
    '/auth/signup',
    {
      config: { public: true },
      schema: {
        operationId: 'auth.signup',
        tags: ['Identity'],
        summary: 'Create an organization and its owner (when sign-up is enabled)',
        security: [],
        body: SignupBody,
        response: { 201: SignupResponse, ...errors(400, 403, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await signup(database, config, clock, request.body)),
  );

  app.post(
    '/auth/login',
    {
      config: { public: true },
      schema: {
        operationId: 'auth.login',
        tags: ['Identity'],
        summary: 'Exchange e-mail and password for an access token',
        description: `Wrong e-mail or password: 401. Two limits answer 429 with Retry-After: the attempts of one client address (SDCS_AUTH_ATTEMPTS_PER_MINUTE a minute), and one account's budget across all addresses: after ${config.accountAttemptBudget} attempts without a pause of ${config.attemptBudgetQuietMinutes} minutes (SDCS_ACCOUNT_ATTEMPT_BUDGET, SDCS_ATTEMPT_BUDGET_QUIET_MINUTES), each further attempt waits 1, 2, 4, … seconds, at most ${config.attemptBackoffMaxSeconds} (SDCS_ATTEMPT_BACKOFF_MAX_SECONDS). A right password gives its attempt back and works as soon as the wait is over. When the budget runs out, the account's owner is told by e-mail (at most once a day).`,
        security: [],
        body: LoginBody,
        response: { 200: LoginResponse, ...errors(400, 401, 429) },
      },
    },
    (request, reply) =>
      login(database, config, { budget, clock, mailer, log: request.log }, request.body).catch((error) =>
        withRetryAfter(reply, error),
      ),
  );

  app.post(
    '/auth/logout',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'auth.logout',
        tags: ['Identity'],
        summary: 'Revoke the access token used for this call',
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errors(400, 401) },
      },
    },
    async (request) => {
      await logout(database, callerOf(request));
      return { success: true };
    },
  );

  app.get(
    '/me',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'auth.me',
        tags: ['Identity'],
        summary: 'The caller: user, organization, role and assigned sites',
        response: { 200: MeResponse, ...errors(401) },
      },
    },
    (request) => request.tenant((tx, caller) => describeCaller(tx, caller)),
  );

  app.patch(
    '/me',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'auth.updateMe',
        tags: ['Identity'],
        summary: "Set the caller's language",
        description:
          "The language (`locale`) is the person's, in every organization they belong to: the web app shows itself in it, whatever the browser asks for, and the e-mails SDCS sends them (reminders, rejections) are written in it. `null` goes back to following the browser. Answers the caller as GET /me does.",
        body: MePatchBody,
        response: { 200: MeResponse, ...errors(400, 401) },
      },
    },
    (request) => request.tenant((tx, caller) => setCallerLocale(tx, caller, request.body.locale)),
  );
};
