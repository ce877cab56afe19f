import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import { callerOf } from '../../http/auth.ts';
import { errors } from '../../http/schemas.ts';
import { LoginBody, LoginResponse, MeResponse, SignupBody, SignupResponse } from './auth.schemas.ts';
import { describeCaller, login, logout, signup } from './auth.service.ts';

export const authRoutes: FastifyPluginAsyncTypebox<{ database: Database; config: Config }> = async (
  app,
  { database, config },
) => {
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
    async (request, reply) => reply.code(201).send(await signup(database, config, request.body)),
  );

  app.post(
    '/auth/login',
    {
      config: { public: true },
      schema: {
        operationId: 'auth.login',
        tags: ['Identity'],
        summary: 'Exchange e-mail and password for an access token',
        security: [],
        body: LoginBody,
        response: { 200: LoginResponse, ...errors(400, 401) },
      },
    },
    (request) => login(database, config, request.body),
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
};
