import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Database } from '../../db/client.ts';
import { authorize } from '../../domain/errors.ts';
import { callerOf } from '../../http/auth.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import {
  createItem,
  getItem,
  itemHistory,
  listItems,
  removeItem,
  updateItem,
} from './dataset-items.service.ts';
import { datasetPolicy, READ_DENIED, WRITE_DENIED } from './datasets.policy.ts';
import {
  CreateItemBody,
  DatasetItem,
  ItemChange,
  ListedDatasetItem,
  UpdateItemBody,
} from './datasets.schemas.ts';

const TAGS = ['Datasets'];

export const datasetItemsRoutes: FastifyPluginAsyncTypebox<{ database: Database }> = async (
  app,
  { database },
) => {
  app.post(
    '/dataset-items',
    {
      schema: {
        operationId: 'datasetItems.create',
        tags: TAGS,
        summary: 'Add a coefficient to a dataset (owners)',
        description:
          '`name` is the label; `data` holds the key, the numeric value and the unit symbol it yields. A key is unique in its dataset per year. Changes affect every calculation that uses the coefficient.',
        body: CreateItemBody,
        response: { 200: DatasetItem, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(datasetPolicy.canWrite(caller), WRITE_DENIED);
      return database.tenant(caller.organizationId, (tx) => createItem(tx, caller, request.body));
    },
  );

  app.get(
    '/dataset-items',
    {
      schema: {
        operationId: 'datasetItems.list',
        tags: TAGS,
        summary: 'List every item of the organization’s datasets and of common ones (managers and owners)',
        response: { 200: Type.Array(ListedDatasetItem), ...errors(401, 403) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(datasetPolicy.canRead(caller), READ_DENIED);
      return database.tenant(caller.organizationId, (tx) => listItems(tx, caller));
    },
  );

  app.get(
    '/dataset-items/:id',
    {
      schema: {
        operationId: 'datasetItems.get',
        tags: TAGS,
        summary: 'Get one item with its data (managers and owners)',
        params: IdParams,
        response: { 200: DatasetItem, ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(datasetPolicy.canRead(caller), READ_DENIED);
      return database.tenant(caller.organizationId, (tx) => getItem(tx, caller, request.params.id));
    },
  );

  app.put(
    '/dataset-items/:id',
    {
      schema: {
        operationId: 'datasetItems.update',
        tags: TAGS,
        summary: 'Change an item (owners)',
        description:
          'Each field sent replaces the stored one (`data` as a whole); the change is kept in the history.',
        params: IdParams,
        body: UpdateItemBody,
        response: { 200: DatasetItem, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(datasetPolicy.canWrite(caller), WRITE_DENIED);
      return database.tenant(caller.organizationId, (tx) =>
        updateItem(tx, caller, request.params.id, request.body),
      );
    },
  );

  app.delete(
    '/dataset-items/:id',
    {
      schema: {
        operationId: 'datasetItems.delete',
        tags: TAGS,
        summary: 'Delete an item (owners)',
        description: 'Answers with the deleted item; its history is kept.',
        params: IdParams,
        response: { 200: DatasetItem, ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(datasetPolicy.canWrite(caller), WRITE_DENIED);
      return database.tenant(caller.organizationId, (tx) => removeItem(tx, caller, request.params.id));
    },
  );

  app.get(
    '/dataset-items/:id/history',
    {
      schema: {
        operationId: 'datasetItems.history',
        tags: TAGS,
        summary: 'The change history of an item, oldest first (managers and owners)',
        description:
          'Who changed what and when, with the item before and after; also after the item was deleted.',
        params: IdParams,
        response: { 200: Type.Array(ItemChange), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(datasetPolicy.canRead(caller), READ_DENIED);
      return database.tenant(caller.organizationId, (tx) => itemHistory(tx, caller, request.params.id));
    },
  );
};
