import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { checkReadiness } from './health.service.ts';

const Engine = Type.Union([Type.Literal('pglite'), Type.Literal('postgres')]);
const tags = ['Service'];

export const healthRoutes: FastifyPluginAsyncTypebox<Services> = async (app, { database }) => {
  app.get(
    '/health',
    {
      config: { public: true },
      schema: {
        operationId: 'health.get',
        tags,
        summary: 'Liveness and database reachability (no credential needed)',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ok'), database: Engine }),
          ...errors(503),
        },
      },
    },
    async () => {
      await database.ping();
      return { status: 'ok' as const, database: database.engine };
    },
  );

  app.get(
    '/health/live',
    {
      config: { public: true, rateLimit: false },
      schema: {
        operationId: 'health.live',
        tags,
        summary: 'Liveness: the process answers (touches nothing else)',
        description: 'For a process supervisor: restart the process when this does not answer.',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }), ...errors() },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/health/ready',
    {
      config: { public: true, rateLimit: false },
      schema: {
        operationId: 'health.ready',
        tags,
        summary: 'Readiness: database reachable, migrations applied, calculation sandbox up',
        description:
          'For a load balancer: send traffic only while this is 200. A 503 names each failed check in `issues` (path `database`, `migrations` or `sandbox`).',
        security: [],
        response: {
          200: Type.Object({
            status: Type.Literal('ok'),
            database: Engine,
            checks: Type.Object({
              database: Type.Literal('ok'),
              migrations: Type.Literal('ok'),
              sandbox: Type.Literal('ok'),
            }),
          }),
          ...errors(503),
        },
      },
    },
    async () => {
      await checkReadiness(database);
      const ok = 'ok' as const;
      return { status: ok, database: database.engine, checks: { database: ok, migrations: ok, sandbox: ok } };
    },
  );
};
