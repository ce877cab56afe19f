import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import {
  createItem,
  getItem,
  itemHistory,
  listItems,
  removeItem,
  updateItem,
} from './dataset-items.service.ts';
import {
  CreateItemBody,
  DatasetItem,
  ItemChange,
  ListedDatasetItem,
  UpdateItemBody,
} from './datasets.schemas.ts';

const TAGS = ['Datasets'];

export const datasetItemsRoutes: FastifyPluginAsyncTypebox<Services> = async (app) => {
  app.post(
    '/dataset-items',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'datasetItems.create',
        tags: TAGS,
        summary: 'Add a coefficient to a dataset (owners)',
        description:
          '`name` is the label; `data` holds the key, the numeric value and the unit symbol it yields. A key is unique in its dataset per year. Changes affect every calculation that uses the coefficient. The built-in factor library is read-only for everyone: 403.',
        body: CreateItemBody,
        response: { 200: DatasetItem, ...errors(400, 401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => createItem(tx, caller, request.body, app.clock())),
  );

  app.get(
    '/dataset-items',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'datasetItems.list',
        tags: TAGS,
        summary: 'List every item of the organization’s datasets and of common ones (managers and owners)',
        description:
          'The organization’s own items first, then those of common datasets; within each, by dataset id, key (byte order) and year (a total order: an item is unique per dataset, key and year).',
        response: { 200: Type.Array(ListedDatasetItem), ...errors(401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => listItems(tx, caller)),
  );

  app.get(
    '/dataset-items/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'datasetItems.get',
        tags: TAGS,
        summary: 'Get one item with its data (managers and owners)',
        params: IdParams,
        response: { 200: DatasetItem, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getItem(tx, caller, request.params.id)),
  );

  app.put(
    '/dataset-items/:id',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'datasetItems.update',
        tags: TAGS,
        summary: 'Change an item (owners)',
        description:
          'Each field sent replaces the stored one (`data` as a whole); the change is kept in the history. The built-in factor library is read-only for everyone: 403.',
        params: IdParams,
        body: UpdateItemBody,
        response: { 200: DatasetItem, ...errors(400, 401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => updateItem(tx, caller, request.params.id, request.body)),
  );

  app.delete(
    '/dataset-items/:id',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'datasetItems.delete',
        tags: TAGS,
        summary: 'Delete an item (owners)',
        description:
          'Answers with the deleted item; its history is kept. The built-in factor library is read-only for everyone: 403.',
        params: IdParams,
        response: { 200: DatasetItem, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => removeItem(tx, caller, request.params.id)),
  );

  app.get(
    '/dataset-items/:id/history',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'datasetItems.history',
        tags: TAGS,
        summary: 'The change history of an item, oldest first (managers and owners)',
        description:
          'Who changed what and when, with the item before and after; also after the item was deleted. Empty for an item of the built-in factor library, which never changes.',
        params: IdParams,
        response: { 200: Type.Array(ItemChange), ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => itemHistory(tx, caller, request.params.id)),
  );
};
