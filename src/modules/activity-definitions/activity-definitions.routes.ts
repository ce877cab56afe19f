import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { callerOf } from '../../http/auth.ts';
import { errorAnswer, errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import {
  ActivityDefinition,
  CreateDefinitionBody,
  UpdateDefinitionBody,
} from './activity-definitions.schemas.ts';
import {
  authorizeCommon,
  authorizeOrganizationWide,
  checkDefinitionContent,
  createDefinition,
  deleteDefinition,
  getDefinition,
  listDefinitions,
  ORGANIZATION_WIDE,
  updateDefinition,
} from './activity-definitions.service.ts';

const WHO_CHANGES =
  'A definition calculates the activities of every site that uses it: owners, and managers whose sites cover the whole organization, may create, change and delete definitions; a manager limited to some sites is refused (403).';

/** The 403 of the writes: the site limit is the example; `other` names the route's other refusals. */
const forbidden = (other = '') =>
  errorAnswer(
    `A manager limited to some sites (the example), a role below MANAGER (“This needs the MANAGER role or higher; your role is COLLECTOR”)${other}`,
    'FORBIDDEN',
    ORGANIZATION_WIDE,
  );

const TAGS = ['Activity definitions'];
export const activityDefinitionsRoutes: FastifyPluginAsyncTypebox<Services> = async (app) => {
  app.get(
    '/activity-definitions',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'activityDefinitions.list',
        tags: TAGS,
        summary: 'List the organization’s activity definitions and the common ones',
        response: { 200: Type.Array(ActivityDefinition), ...errors(401) },
      },
    },
    (request) => request.tenant((tx, caller) => listDefinitions(tx, caller)),
  );

  app.post(
    '/activity-definitions',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'activityDefinitions.create',
        tags: TAGS,
        summary: 'Create an activity definition (managers)',
        description: `calcCode is checked for syntax and metadataSchema must be a valid JSON Schema. Without \`key\`, the key is derived from the name (with a numeric suffix when taken). ${WHO_CHANGES}`,
        body: CreateDefinitionBody,
        response: { 200: ActivityDefinition, ...errors(400, 401), 403: forbidden() },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorizeCommon(caller, request.body.isCommon);
      // Refused before calcCode is compiled; checked again in the write's transaction.
      await request.tenant((tx) => authorizeOrganizationWide(tx, caller));
      const fields = await checkDefinitionContent(request.body);
      return request.tenant((tx) => createDefinition(tx, caller, request.body, fields));
    },
  );

  app.get(
    '/activity-definitions/:id',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'activityDefinitions.get',
        tags: TAGS,
        summary: 'Get an activity definition (own or common)',
        params: IdParams,
        response: { 200: ActivityDefinition, ...errors(401, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getDefinition(tx, caller, request.params.id)),
  );

  app.put(
    '/activity-definitions/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'activityDefinitions.update',
        tags: TAGS,
        summary: 'Replace an activity definition’s editable fields (managers)',
        description: `Replaces name, description, uiCode, calcCode, inputs (the whole list), metadataSchema and unitId (left out: none); the key never changes. Later calculations use the new calcCode; stored activities keep their values until recalculated. Changing isCommon needs a platform admin; common definitions of other organizations are read-only (403). ${WHO_CHANGES}`,
        params: IdParams,
        body: UpdateDefinitionBody,
        response: {
          200: ActivityDefinition,
          ...errors(400, 401, 404),
          403: forbidden(
            ', another organization’s common definition (“This common activity definition belongs to another organization and is read-only”), or a change of isCommon without being a platform admin',
          ),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorizeCommon(caller, request.body.isCommon);
      // Refused before calcCode is compiled; checked again in the write's transaction.
      await request.tenant((tx) => authorizeOrganizationWide(tx, caller));
      const fields = await checkDefinitionContent(request.body);
      return request.tenant((tx) => updateDefinition(tx, caller, request.params.id, request.body, fields));
    },
  );

  app.delete(
    '/activity-definitions/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'activityDefinitions.delete',
        tags: TAGS,
        summary: 'Delete an activity definition (managers)',
        description: `Answers with the deleted definition. A definition that form elements or activities still refer to is not deleted (400). ${WHO_CHANGES}`,
        params: IdParams,
        response: { 200: ActivityDefinition, ...errors(400, 401, 404), 403: forbidden() },
      },
    },
    (request) => request.tenant((tx, caller) => deleteDefinition(tx, caller, request.params.id)),
  );
};
