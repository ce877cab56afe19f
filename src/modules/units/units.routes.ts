import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { CreateUnitBody, Unit } from './units.schemas.ts';
import { createUnit, listUnits } from './units.service.ts';

export const unitsRoutes: FastifyPluginAsyncTypebox<Services> = async (app) => {
  app.get(
    '/units',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'units.list',
        tags: ['Units'],
        summary: 'List the units: the shared catalog and the organization’s own',
        description: 'Catalog units have `organizationId: null`. Any member may read them.',
        response: { 200: Type.Array(Unit), ...errors(401) },
      },
    },
    (request) => request.tenant((tx, caller) => listUnits(tx, caller)),
  );

  app.post(
    '/units',
    {
      config: { minRole: 'MANAGER' },
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
    (request) => request.tenant((tx, caller) => createUnit(tx, caller, request.body)),
  );
};
