import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { FormSite, FormSitesQuery, SetFormSitesBody } from './form-sites.schemas.ts';
import { listFormSites, setFormSites } from './form-sites.service.ts';

const TAGS = ['Forms'];

export const formSitesRoutes: FastifyPluginAsyncTypebox<Services> = async (app) => {
  app.put(
    '/form-sites',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'formSites.set',
        tags: TAGS,
        summary: 'Set the sites a form is active on, per year (managers)',
        description:
          'For every year listed, the form becomes active on exactly `siteIds`; other years stay as they are. A removed (form, site, year) is deactivated: its submission is hidden, not deleted, and comes back when the triple is added again. The replacement covers the caller’s own sites: a manager’s call leaves sites outside their scope as they are, so an owner’s call covers every site. Adding a site the caller does not manage is a 403. Removing a (site, year) that a live lock of the form covers, in whole or in part, is a 400 naming the lock: unlock it first.',
        body: SetFormSitesBody,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await request.tenant((tx, caller) => setFormSites(tx, caller, request.body));
      return { success: true };
    },
  );

  app.get(
    '/form-sites',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'formSites.list',
        tags: TAGS,
        summary: 'List the active (form, site, year) triples on the sites you can read',
        querystring: FormSitesQuery,
        response: { 200: Type.Array(FormSite), ...errors(400, 401) },
      },
    },
    (request) => request.tenant((tx, caller) => listFormSites(tx, caller, request.query)),
  );
};
