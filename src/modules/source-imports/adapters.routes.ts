import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errorAnswer, errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { AdapterBody, AdapterDefinition } from './adapters.schemas.ts';
import {
  ADAPTERS_ORGANIZATION_WIDE,
  createAdapter,
  getAdapter,
  listAdapters,
  updateAdapter,
} from './adapters.service.ts';

const TAGS = ['Source imports'];
const MAPPING_HELP =
  'Each saved mapping is an immutable version; `adapterVersion` is the SHA-256 hex of its canonical JSON (keys sorted) and earlier versions stay usable by their hash. The mapping is checked when saved (400 naming the path).';

const WHO_CHANGES =
  'A definition maps the files of every site: owners, and managers whose sites cover the whole organization, may create and change definitions; a manager limited to some sites is refused (403).';

/** The 403 of the writes: the site limit is the example. */
const forbiddenWrite = () =>
  errorAnswer(
    'A manager limited to some sites (the example), or a role below MANAGER (“This needs the MANAGER role or higher; your role is COLLECTOR”)',
    'FORBIDDEN',
    ADAPTERS_ORGANIZATION_WIDE,
  );

export const adaptersRoutes: FastifyPluginAsyncTypebox<Services> = async (app) => {
  app.get(
    '/source-adapter-definitions',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'sourceAdapters.list',
        tags: TAGS,
        summary: 'List source adapter definitions (managers and owners)',
        response: { 200: Type.Array(AdapterDefinition), ...errors(401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => listAdapters(tx, caller)),
  );

  app.post(
    '/source-adapter-definitions',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'sourceAdapters.create',
        tags: TAGS,
        summary: 'Create a source adapter definition (managers and owners)',
        description: [MAPPING_HELP, WHO_CHANGES].join(' '),
        body: AdapterBody,
        response: { 200: AdapterDefinition, ...errors(400, 401), 403: forbiddenWrite() },
      },
    },
    (request) => request.tenant((tx, caller) => createAdapter(tx, caller, request.body)),
  );

  app.get(
    '/source-adapter-definitions/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'sourceAdapters.get',
        tags: TAGS,
        summary: 'Get a source adapter definition with its versions',
        params: IdParams,
        response: { 200: AdapterDefinition, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getAdapter(tx, caller, request.params.id)),
  );

  app.put(
    '/source-adapter-definitions/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'sourceAdapters.update',
        tags: TAGS,
        summary: 'Replace a source adapter definition (a new mapping is a new version)',
        description: [MAPPING_HELP, WHO_CHANGES].join(' '),
        params: IdParams,
        body: AdapterBody,
        response: { 200: AdapterDefinition, ...errors(400, 401, 404), 403: forbiddenWrite() },
      },
    },
    (request) => request.tenant((tx, caller) => updateAdapter(tx, caller, request.params.id, request.body)),
  );
};
