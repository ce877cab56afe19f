import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Database } from '../../db/client.ts';
import { authorize } from '../../domain/errors.ts';
import { callerOf } from '../../http/auth.ts';
import { errors } from '../../http/schemas.ts';
import { policy } from '../access/access.policy.ts';
import { FormSite, FormSitesQuery, SetFormSitesBody } from './form-sites.schemas.ts';
import { listFormSites, setFormSites } from './form-sites.service.ts';

const TAGS = ['Forms'];

export const formSitesRoutes: FastifyPluginAsyncTypebox<{ database: Database }> = async (
  app,
  { database },
) => {
  app.put(
    '/form-sites',
    {
      schema: {
        operationId: 'formSites.set',
        tags: TAGS,
        summary: 'Set the sites a form is active on, per year (managers)',
        description:
          'For every year listed, the form becomes active on exactly `siteIds`; other years stay as they are. A removed (form, site, year) is deactivated: its submission is hidden, not deleted, and comes back when the triple is added again. The replacement covers the caller’s own sites: a manager’s call leaves sites outside their scope as they are, so an owner’s call covers every site. Adding a site the caller does not manage is a 403.',
        body: SetFormSitesBody,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(policy.canConfigure(caller), 'Forms are assigned to sites by managers and owners');
      await database.tenant(caller.organizationId, (tx) => setFormSites(tx, caller, request.body));
      return { success: true };
    },
  );

  app.get(
    '/form-sites',
    {
      schema: {
        operationId: 'formSites.list',
        tags: TAGS,
        summary: 'List the active (form, site, year) triples on the sites you can read',
        querystring: FormSitesQuery,
        response: { 200: Type.Array(FormSite), ...errors(400, 401) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return database.tenant(caller.organizationId, (tx) => listFormSites(tx, caller, request.query));
    },
  );
};
