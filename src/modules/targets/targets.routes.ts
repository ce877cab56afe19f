import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errorAnswer, errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { CreateTargetBody, Target, TargetsQuery, UpdateTargetBody } from './targets.schemas.ts';
import {
  createTarget,
  getTarget,
  listTargets,
  removeTarget,
  TARGETS_ORGANIZATION_WIDE,
  updateTarget,
} from './targets.service.ts';

const TAGS = ['Targets'];
const ENTRY_RULES =
  'Entries: year 1900-2200, month 1-12 or quarter 1-4 (not both), a finite targetValue, and a siteId of the organization (400 otherwise). Each answered entry adds `period` (MONTHLY, QUARTERLY or YEARLY) and `type` (ABSOLUTE by default; PERCENTAGE is a change relative to the baseline).';

const WHO_CHANGES =
  'A target belongs to an indicator of the whole organization: owners, and managers whose sites cover the whole organization, may create, change and delete targets; a manager limited to some sites is refused (403), even for entries of their own sites.';

/** The 403 of the writes: the site limit is the example. */
const forbiddenWrite = () =>
  errorAnswer(
    'A manager limited to some sites (the example), or a role below MANAGER (“This needs the MANAGER role or higher; your role is COLLECTOR”)',
    'FORBIDDEN',
    TARGETS_ORGANIZATION_WIDE,
  );

export const targetsRoutes: FastifyPluginAsyncTypebox<Services> = async (app) => {
  app.post(
    '/targets',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'targets.create',
        tags: TAGS,
        summary: 'Set a target for an indicator (managers and owners)',
        description: [ENTRY_RULES, WHO_CHANGES].join(' '),
        body: CreateTargetBody,
        response: { 200: Target, ...errors(400, 401), 403: forbiddenWrite() },
      },
    },
    (request) => request.tenant((tx, caller) => createTarget(tx, caller, request.body)),
  );

  app.get(
    '/targets',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'targets.list',
        tags: TAGS,
        summary: 'List targets, optionally of one indicator (every member)',
        querystring: TargetsQuery,
        response: { 200: Type.Array(Target), ...errors(400, 401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => listTargets(tx, caller, request.query.indicatorId)),
  );

  app.get(
    '/targets/:id',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'targets.get',
        tags: TAGS,
        summary: 'Get a target (every member)',
        params: IdParams,
        response: { 200: Target, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getTarget(tx, caller, request.params.id)),
  );

  app.put(
    '/targets/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'targets.update',
        tags: TAGS,
        summary: 'Change a target (managers and owners)',
        description: [
          `Each field sent is replaced whole; indicatorId cannot change. ${ENTRY_RULES}`,
          WHO_CHANGES,
        ].join(' '),
        params: IdParams,
        body: UpdateTargetBody,
        response: { 200: Target, ...errors(400, 401, 404), 403: forbiddenWrite() },
      },
    },
    (request) => request.tenant((tx, caller) => updateTarget(tx, caller, request.params.id, request.body)),
  );

  app.delete(
    '/targets/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'targets.delete',
        tags: TAGS,
        summary: 'Delete a target (managers and owners)',
        description: WHO_CHANGES,
        params: IdParams,
        response: { 200: Target, ...errors(401, 404), 403: forbiddenWrite() },
      },
    },
    (request) => request.tenant((tx, caller) => removeTarget(tx, caller, request.params.id)),
  );
};
