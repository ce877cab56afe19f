import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Database } from '../../db/client.ts';
import { authorize } from '../../domain/errors.ts';
import { callerOf } from '../../http/auth.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import { policy } from '../access/access.policy.ts';
import { recalculateDefinition } from '../activities/activities.recalculate.ts';
import { RecalculateResult } from '../activities/activities.schemas.ts';
import {
  ActivityDefinition,
  CreateDefinitionBody,
  UpdateDefinitionBody,
} from './activity-definitions.schemas.ts';
import {
  authorizeCommon,
  checkDefinitionContent,
  createDefinition,
  deleteDefinition,
  getDefinition,
  listDefinitions,
  updateDefinition,
} from './activity-definitions.service.ts';

const TAGS = ['Activity definitions'];
const MANAGERS_ONLY = 'Managing activity definitions needs the MANAGER role or above';

export const activityDefinitionsRoutes: FastifyPluginAsyncTypebox<{ database: Database }> = async (
  app,
  { database },
) => {
  app.get(
    '/activity-definitions',
    {
      schema: {
        operationId: 'activityDefinitions.list',
        tags: TAGS,
        summary: 'List the organization’s activity definitions and the common ones',
        response: { 200: Type.Array(ActivityDefinition), ...errors(401) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return database.tenant(caller.organizationId, (tx) => listDefinitions(tx, caller));
    },
  );

  app.post(
    '/activity-definitions',
    {
      schema: {
        operationId: 'activityDefinitions.create',
        tags: TAGS,
        summary: 'Create an activity definition (managers)',
        description:
          'calcCode is checked for syntax and metadataSchema must be a valid JSON Schema. Without `key`, the key is derived from the name (with a numeric suffix when taken).',
        body: CreateDefinitionBody,
        response: { 200: ActivityDefinition, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(policy.canConfigure(caller), MANAGERS_ONLY);
      authorizeCommon(caller, request.body.isCommon);
      const fields = await checkDefinitionContent(request.body);
      return database.tenant(caller.organizationId, (tx) =>
        createDefinition(tx, caller, request.body, fields),
      );
    },
  );

  app.get(
    '/activity-definitions/:id',
    {
      schema: {
        operationId: 'activityDefinitions.get',
        tags: TAGS,
        summary: 'Get an activity definition (own or common)',
        params: IdParams,
        response: { 200: ActivityDefinition, ...errors(401, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return database.tenant(caller.organizationId, (tx) => getDefinition(tx, caller, request.params.id));
    },
  );

  app.put(
    '/activity-definitions/:id',
    {
      schema: {
        operationId: 'activityDefinitions.update',
        tags: TAGS,
        summary: 'Replace an activity definition’s editable fields (managers)',
        description:
          'Replaces name, description, uiCode, calcCode, inputs (the whole list) and metadataSchema; the key never changes. Later calculations use the new calcCode. Changing isCommon needs a platform admin; common definitions of other organizations are read-only (403).',
        params: IdParams,
        body: UpdateDefinitionBody,
        response: { 200: ActivityDefinition, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(policy.canConfigure(caller), MANAGERS_ONLY);
      authorizeCommon(caller, request.body.isCommon);
      const fields = await checkDefinitionContent(request.body);
      return database.tenant(caller.organizationId, (tx) =>
        updateDefinition(tx, caller, request.params.id, request.body, fields),
      );
    },
  );

  app.post(
    '/activity-definitions/:id/recalculate',
    {
      schema: {
        operationId: 'activityDefinitions.recalculate',
        tags: TAGS,
        summary: 'Calculate every activity of the definition again (managers)',
        description:
          'Runs the current calcCode over all of your organization’s activities of this definition, in one transaction. Activities whose calculation fails keep their value and are counted (the first 100 listed); changed values are recorded in the activities’ history.',
        params: IdParams,
        response: { 200: RecalculateResult, ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(policy.canConfigure(caller), 'Recalculating activities needs the MANAGER role or above');
      return database.tenant(caller.organizationId, (tx) =>
        recalculateDefinition(tx, caller, request.params.id),
      );
    },
  );

  app.delete(
    '/activity-definitions/:id',
    {
      schema: {
        operationId: 'activityDefinitions.delete',
        tags: TAGS,
        summary: 'Delete an activity definition (managers)',
        description:
          'Answers with the deleted definition. A definition that form elements or activities still refer to is not deleted (400).',
        params: IdParams,
        response: { 200: ActivityDefinition, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(policy.canConfigure(caller), MANAGERS_ONLY);
      return database.tenant(caller.organizationId, (tx) => deleteDefinition(tx, caller, request.params.id));
    },
  );
};
