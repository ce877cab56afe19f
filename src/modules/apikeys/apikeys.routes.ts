import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Database } from '../../db/client.ts';
import { authorize } from '../../domain/errors.ts';
import { isOwner } from '../../domain/roles.ts';
import { callerOf } from '../../http/auth.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import { CreateApiKeyBody, CreatedApiKey, ListedApiKey } from './apikeys.schemas.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './apikeys.service.ts';

const OWNER_ONLY = 'Only organization owners can manage API keys';

export const apiKeysRoutes: FastifyPluginAsyncTypebox<{ database: Database }> = async (app, { database }) => {
  app.post(
    '/apikeys',
    {
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
    async (request) => {
      const caller = callerOf(request);
      authorize(isOwner(caller), OWNER_ONLY);
      return database.tenant(caller.organizationId, (tx) => createApiKey(tx, caller, request.body.name));
    },
  );

  app.get(
    '/apikeys',
    {
      schema: {
        operationId: 'apikeys.list',
        tags: ['API keys'],
        summary: 'List the organization’s active API keys (owners)',
        response: { 200: Type.Array(ListedApiKey), ...errors(401, 403) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(isOwner(caller), OWNER_ONLY);
      return database.tenant(caller.organizationId, (tx) => listApiKeys(tx, caller));
    },
  );

  app.delete(
    '/apikeys/:id',
    {
      schema: {
        operationId: 'apikeys.revoke',
        tags: ['API keys'],
        summary: 'Revoke an API key (owners)',
        params: IdParams,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(isOwner(caller), OWNER_ONLY);
      await database.tenant(caller.organizationId, (tx) => revokeApiKey(tx, caller, request.params.id));
      return { success: true };
    },
  );
};
