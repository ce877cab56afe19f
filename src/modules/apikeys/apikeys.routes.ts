import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors, IdParams } from '../../http/schemas.ts';
import { CreateApiKeyBody, CreatedApiKey, ListedApiKey } from './apikeys.schemas.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './apikeys.service.ts';

export const apiKeysRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/apikeys',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'apikeys.create',
        tags: ['API keys'],
        summary: 'Create an API key (owners)',
        description:
          'Creates a key that acts as the calling owner. The key is in this response only; afterwards only its SHA-256 is listed.',
        body: CreateApiKeyBody,
        response: { 200: CreatedApiKey, ...errors(400, 401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => createApiKey(tx, caller, request.body.name)),
  );

  app.get(
    '/apikeys',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'apikeys.list',
        tags: ['API keys'],
        summary: 'List the organization’s active API keys (owners)',
        response: { 200: Type.Array(ListedApiKey), ...errors(401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => listApiKeys(tx, caller)),
  );

  app.delete(
    '/apikeys/:id',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'apikeys.revoke',
        tags: ['API keys'],
        summary: 'Revoke an API key (owners)',
        params: IdParams,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      await request.tenant((tx, caller) => revokeApiKey(tx, caller, request.params.id));
      return { success: true };
    },
  );
};
