import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type, { type TSchema } from 'typebox';
import { errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { CreateApiKeyBody, CreatedApiKey, ListedApiKey } from './apikeys.schemas.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './apikeys.service.ts';

/** The 409 of a full organization, with the message it answers. */
const conflict409 = (max: number) =>
  ({
    ...errors(409)[409],
    description: 'The organization already holds the most active API keys it may (revoke one first)',
    examples: [
      {
        code: 'CONFLICT',
        message: `Your organization already has ${max} active API keys, the most it may hold (${max}); revoke one you no longer use first`,
        issues: [{ path: 'name', message: `at most ${max} active API keys per organization` }],
      },
    ],
  }) as TSchema;

export const apiKeysRoutes: FastifyPluginAsyncTypebox<Services> = async (app, { config }) => {
  /** Live keys one organization may hold (SDCS_MAX_API_KEYS_PER_ORGANIZATION). */
  const maxLiveKeys = config.maxApiKeysPerOrganization;
  app.post(
    '/apikeys',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'apikeys.create',
        tags: ['API keys'],
        summary: 'Create an API key (owners)',
        description: `Creates a key that acts as the calling owner. The key is in this response only; afterwards only its SHA-256 is listed. An organization holds at most ${maxLiveKeys} active (unrevoked) keys (SDCS_MAX_API_KEYS_PER_ORGANIZATION): one more is 409 until a key is revoked. Every key has its own request budget per minute, and all the organization's credentials share one more (SDCS_ORG_RATE_LIMIT_PER_MINUTE), so more keys do not mean more requests.`,
        body: CreateApiKeyBody,
        response: {
          200: CreatedApiKey,
          ...errors(400, 401, 403, 409),
          409: conflict409(maxLiveKeys),
        },
      },
    },
    (request) => request.tenant((tx, caller) => createApiKey(tx, caller, request.body.name, maxLiveKeys)),
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
