import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors, IdParams } from '../../http/schemas.ts';
import { CreateTargetBody, Target, TargetsQuery, UpdateTargetBody } from './targets.schemas.ts';
import { createTarget, getTarget, listTargets, removeTarget, updateTarget } from './targets.service.ts';

const TAGS = ['Targets'];
const ENTRY_RULES =
  'Entries: year 1900-2200, month 1-12 or quarter 1-4 (not both), a finite targetValue, and a siteId among the caller’s sites (403 otherwise). Each answered entry adds `period` (MONTHLY, QUARTERLY or YEARLY) and `type` (ABSOLUTE by default; PERCENTAGE is a change relative to the baseline).';

export const targetsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/targets',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'targets.create',
        tags: TAGS,
        summary: 'Set a target for an indicator (managers and owners)',
        description: ENTRY_RULES,
        body: CreateTargetBody,
        response: { 200: Target, ...errors(400, 401, 403) },
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
        description: `Each field sent is replaced whole; indicatorId cannot change. ${ENTRY_RULES}`,
        params: IdParams,
        body: UpdateTargetBody,
        response: { 200: Target, ...errors(400, 401, 403, 404) },
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
        params: IdParams,
        response: { 200: Target, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => removeTarget(tx, caller, request.params.id)),
  );
};
