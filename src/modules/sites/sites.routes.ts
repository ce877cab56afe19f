import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { callerOf } from '../../http/auth.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { parseSitesCsv } from './sites.csv.ts';
import { authorizeImport, importSites } from './sites.import.ts';
import {
  CreateSiteBody,
  ImportSitesBody,
  ListSitesQuery,
  Site,
  SiteImportResult,
  UpdateSiteBody,
} from './sites.schemas.ts';
import { createSite, deleteSite, getSite, listSites, updateSite } from './sites.service.ts';

const tags = ['Sites'];

export const sitesRoutes: FastifyPluginAsyncTypebox<Services> = async (app, { config }) => {
  app.get(
    '/sites',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'sites.list',
        tags,
        summary: 'List the sites you can access',
        description:
          'Owners see every site; other members see their assigned sites and everything below them. Sorted by name (case-insensitive, then byte order), then id.',
        querystring: ListSitesQuery,
        response: { 200: Type.Array(Site), ...errors(400, 401) },
      },
    },
    (request) => request.tenant((tx, caller) => listSites(tx, caller, request.query)),
  );

  app.post(
    '/sites',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'sites.create',
        tags,
        summary: 'Create a site',
        description:
          'Managers create sites under a site they manage; only owners create top-level sites (without parentId).',
        body: CreateSiteBody,
        response: { 200: Site, ...errors(400, 401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => createSite(tx, caller, request.body)),
  );

  app.post(
    '/sites/import',
    {
      config: { minRole: 'MANAGER' },
      bodyLimit: config.largeBodyLimitBytes,
      schema: {
        operationId: 'sites.import',
        tags,
        summary: 'Create sites in bulk from CSV',
        description:
          'Each row is checked on its own: failed rows are skipped with a `Row N: …` error (N counts data rows after the header) and the others are created. A parent may be named by code, name or id, of a stored site or of any row of the same file.',
        body: ImportSitesBody,
        response: { 200: SiteImportResult, ...errors(400, 401, 403, 413) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorizeImport(caller, request.body.organizationId);
      const rows = parseSitesCsv(request.body.csvContent);
      return request.tenant((tx) => importSites(tx, caller, rows));
    },
  );

  app.get(
    '/sites/:id',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'sites.get',
        tags,
        summary: 'Get one site',
        params: IdParams,
        response: { 200: Site, ...errors(401, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getSite(tx, caller, request.params.id)),
  );

  app.patch(
    '/sites/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'sites.update',
        tags,
        summary: 'Change or move a site',
        description:
          'Changes the fields sent. Moving a site (parentId) needs management rights on the old and the new parent; top-level sites are the owners’.',
        params: IdParams,
        body: UpdateSiteBody,
        response: { 200: Site, ...errors(400, 401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => updateSite(tx, caller, request.params.id, request.body)),
  );

  app.delete(
    '/sites/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'sites.delete',
        tags,
        summary: 'Delete a site',
        description:
          'Refused (400) while the site has sub-sites or data recorded against it. Needs management rights on the parent site.',
        params: IdParams,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await request.tenant((tx, caller) => deleteSite(tx, caller, request.params.id));
      return { success: true };
    },
  );
};
