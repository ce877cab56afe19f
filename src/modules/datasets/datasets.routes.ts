import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { attachment, prefers } from '../../http/negotiation.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import {
  CreateDatasetBody,
  Dataset,
  DatasetIdParams,
  DatasetImportBody,
  DatasetImportResult,
  ExportResult,
  UpdateDatasetBody,
} from './datasets.schemas.ts';
import { createDataset, getDataset, listDatasets, removeDataset, updateDataset } from './datasets.service.ts';
import { exportDataset, importDataset } from './datasets.transfer.ts';

const TAGS = ['Datasets'];

export const datasetsRoutes: FastifyPluginAsyncTypebox<Services> = async (app, { config }) => {
  app.post(
    '/datasets',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'datasets.create',
        tags: TAGS,
        summary: 'Create a coefficient dataset (owners)',
        description:
          '`isCommon: true` shares it read-only with every organization; only platform admins may set it.',
        body: CreateDatasetBody,
        response: { 200: Dataset, ...errors(400, 401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => createDataset(tx, caller, request.body)),
  );

  app.get(
    '/datasets',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'datasets.list',
        tags: TAGS,
        summary: 'List the organization’s datasets and the common ones (managers and owners)',
        description:
          'Includes the built-in factor library (`builtIn`: grid electricity by country, GWP-100 of AR6 and AR5, IPCC 2006 combustion defaults), common to every organization and read-only, each with its `dataSource`, `version`, `licence` and `link`. A newer library version is another dataset; the one it replaces names it in `supersededById` and keeps its figures.',
        response: { 200: Type.Array(Dataset), ...errors(401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => listDatasets(tx, caller)),
  );

  app.get(
    '/datasets/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'datasets.get',
        tags: TAGS,
        summary: 'Get a dataset (managers and owners)',
        params: IdParams,
        response: { 200: Dataset, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getDataset(tx, caller, request.params.id)),
  );

  app.put(
    '/datasets/:id',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'datasets.update',
        tags: TAGS,
        summary: 'Rename or describe a dataset (owners)',
        description:
          'Common datasets: platform admins of the owning organization only (403 otherwise). The built-in factor library is read-only for everyone: 403.',
        params: IdParams,
        body: UpdateDatasetBody,
        response: { 200: Dataset, ...errors(400, 401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => updateDataset(tx, caller, request.params.id, request.body)),
  );

  app.delete(
    '/datasets/:id',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'datasets.delete',
        tags: TAGS,
        summary: 'Delete a dataset and its items (owners)',
        description:
          'Answers with the deleted dataset. The items’ deletion stays in their history. Calculations that used them no longer find them. The built-in factor library is read-only for everyone: 403.',
        params: IdParams,
        response: { 200: Dataset, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => removeDataset(tx, caller, request.params.id)),
  );

  app.get(
    '/datasets/:datasetId/export',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'datasets.export',
        tags: TAGS,
        summary: 'Export a dataset’s items as CSV (managers and owners)',
        description:
          'Every field of every item: columns `label,key,value,unit,year,inputUnit,description,link,tags` (units by symbol; tags as `a;b`, or a JSON array when a tag holds `;`), then one column per metadata field in sorted order: `metadata.<field>` when its values are all non-empty text, else `metadataJson.<field>` with each value as JSON. Importing the file into an empty dataset gives items equal in every field; importing it back changes nothing. The answer is JSON holding the CSV and the dataset’s `dataSource` and `version`; send `Accept: text/csv` to get the file itself (as an attachment).',
        params: DatasetIdParams,
        response: {
          200: {
            description: 'The export',
            headers: {
              'content-disposition': Type.String({
                description: 'With `Accept: text/csv`: an attachment named by the dataset',
              }),
            },
            content: {
              'application/json': { schema: ExportResult },
              'text/csv': { schema: Type.String({ description: 'The CSV file' }) },
            },
          },
          ...errors(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const result = await request.tenant((tx, caller) =>
        exportDataset(tx, caller, request.params.datasetId),
      );
      if (!prefers(request.headers.accept, 'text/csv', 'application/json')) return result;
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', attachment(result.filename))
        .send(result.csvContent);
    },
  );

  app.post(
    '/datasets/:id/import',
    {
      config: { minRole: 'OWNER' },
      bodyLimit: config.largeBodyLimitBytes,
      schema: {
        operationId: 'datasets.import',
        tags: TAGS,
        summary: 'Import items from CSV (owners)',
        description:
          'Creates or updates the item of each row’s (key, year); without a year the current calendar year. Reads the columns the export writes; older files with fewer columns are accepted, and columns not in the file keep their stored values. An empty cell is no value (no unit, no description, no tags); an empty metadata cell removes the field. A row with a problem (such as a unit or input unit symbol that names no unit) is skipped and listed as `Row N: <column> …`; nothing of it is written. The built-in factor library is read-only for everyone: 403.',
        params: IdParams,
        body: DatasetImportBody,
        response: { 200: DatasetImportResult, ...errors(400, 401, 403, 404, 413) },
      },
    },
    (request) =>
      request.tenant((tx, caller) =>
        importDataset(tx, caller, request.params.id, request.body.csvContent, app.clock()),
      ),
  );
};
