import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/client.ts';
import { authorize } from '../../domain/errors.ts';
import { callerOf } from '../../http/auth.ts';
import { errors } from '../../http/schemas.ts';
import { policy } from '../access/access.policy.ts';
import { Organization, UpdateOrganizationBody } from './organizations.schemas.ts';
import { getOrganization, updateOrganization } from './organizations.service.ts';

export const organizationsRoutes: FastifyPluginAsyncTypebox<{ database: Database }> = async (
  app,
  { database },
) => {
  app.get(
    '/organizations/current',
    {
      schema: {
        operationId: 'organizations.getCurrent',
        tags: ['Organization'],
        summary: 'The caller’s organization (any member)',
        response: { 200: Organization, ...errors(401) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return database.tenant(caller.organizationId, (tx) => getOrganization(tx, caller));
    },
  );

  app.patch(
    '/organizations/current',
    {
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
    async (request) => {
      const caller = callerOf(request);
      authorize(policy.isOwner(caller), 'Only organization owners can change the organization');
      return database.tenant(caller.organizationId, (tx) => updateOrganization(tx, caller, request.body));
    },
  );
};
