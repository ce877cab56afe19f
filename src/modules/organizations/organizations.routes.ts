import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { Organization, UpdateOrganizationBody } from './organizations.schemas.ts';
import { getOrganization, updateOrganization } from './organizations.service.ts';

export const organizationsRoutes: FastifyPluginAsyncTypebox<Services> = async (app) => {
  app.get(
    '/organizations/current',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'organizations.getCurrent',
        tags: ['Organization'],
        summary: 'The caller’s organization (any member)',
        response: { 200: Organization, ...errors(401) },
      },
    },
    (request) => request.tenant((tx, caller) => getOrganization(tx, caller)),
  );

  app.patch(
    '/organizations/current',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'organizations.updateCurrent',
        tags: ['Organization'],
        summary: 'Rename the organization or set its default statuses (owners)',
        description:
          'Fields left out keep their value. `defaultStatuses` are the value statuses counted by indicators and dashboards when a request does not name any.',
        body: UpdateOrganizationBody,
        response: { 200: Organization, ...errors(400, 401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => updateOrganization(tx, caller, request.body)),
  );
};
