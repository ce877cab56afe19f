import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Database } from '../../db/client.ts';
import { errors } from '../../http/schemas.ts';

export const healthRoutes: FastifyPluginAsyncTypebox<{ database: Database }> = async (app, { database }) => {
  app.get(
    '/health',
    {
      config: { public: true },
      schema: {
        operationId: 'health.get',
        tags: ['Service'],
        summary: 'Liveness and database reachability (no credential needed)',
        security: [],
        response: {
          200: Type.Object({
            status: Type.Literal('ok'),
            database: Type.Union([Type.Literal('pglite'), Type.Literal('postgres')]),
          }),
          ...errors(),
        },
      },
    },
    async () => {
      await database.ping();
      return { status: 'ok' as const, database: database.engine };
    },
  );
};
