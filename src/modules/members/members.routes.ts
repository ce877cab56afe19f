import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { Member, MemberParams, UpdateMemberBody } from './members.schemas.ts';
import { listMembers, removeMember, updateMember } from './members.service.ts';

export const membersRoutes: FastifyPluginAsyncTypebox<Services> = async (app) => {
  app.get(
    '/organizations/current/members',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'members.list',
        tags: ['Organization'],
        summary: 'List the organization’s members and pending invitees (managers and owners)',
        response: { 200: Type.Array(Member), ...errors(401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => listMembers(tx, caller)),
  );

  app.patch(
    '/organizations/current/members/:userId',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'members.update',
        tags: ['Organization'],
        summary: 'Change a member’s role or assigned sites (managers and owners)',
        description:
          'Only owners grant or take away OWNER, and the last owner cannot be demoted. Managers change only collectors and viewers whose sites are all within their scope, may give any role but OWNER, and only add or remove sites within their own scope. `siteIds` replaces the assignment.',
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: Member, ...errors(400, 401, 403, 404) },
      },
    },
    (request) =>
      request.tenant((tx, caller) => updateMember(tx, caller, request.params.userId, request.body)),
  );

  app.delete(
    '/organizations/current/members/:userId',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'members.remove',
        tags: ['Organization'],
        summary: 'Remove a member or cancel a pending invitation (managers and owners)',
        description:
          'The member’s access tokens and API keys in this organization are revoked. The last owner cannot be removed; managers remove only collectors and viewers whose sites are all within their scope.',
        params: MemberParams,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await request.tenant((tx, caller) => removeMember(tx, caller, request.params.userId));
      return { success: true };
    },
  );
};
