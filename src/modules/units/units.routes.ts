import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Database } from '../../db/client.ts';
import { authorize } from '../../domain/errors.ts';
import { callerOf } from '../../http/auth.ts';
import { errors } from '../../http/schemas.ts';
import { policy } from '../access/access.policy.ts';
import { CreateUnitBody, Unit } from './units.schemas.ts';
import { createUnit, listUnits } from './units.service.ts';

export const unitsRoutes: FastifyPluginAsyncTypebox<{ database: Database }> = async (app, { database }) => {
  app.get(
    '/units',
    {
      schema: {
        operationId: 'units.list',
        tags: ['Units'],
        summary: 'List the units: the shared catalog and the organization’s own',
        description: 'Catalog units have `organizationId: null`. Any member may read them.',
        response: { 200: Type.Array(Unit), ...errors(401) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return database.tenant(caller.organizationId, (tx) => listUnits(tx, caller));
    },
  );

  app.post(
    '/units',
    {
      schema: {
        operationId: 'units.create',
        tags: ['Units'],
        summary: 'Add a unit of the organization (managers and owners)',
        description:
          'A symbol must not repeat a catalog symbol or one of the organization’s units (400). Values convert only between units of one dimension.',
        body: CreateUnitBody,
        response: { 200: Unit, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(policy.canConfigure(caller), 'Only managers and owners can add units');
      return database.tenant(caller.organizationId, (tx) => createUnit(tx, caller, request.body));
    },
  );
};
