import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Database } from '../../db/client.ts';
import { authorize } from '../../domain/errors.ts';
import { callerOf } from '../../http/auth.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import { policy } from '../access/access.policy.ts';
import { Form, FormBody } from './forms.schemas.ts';
import { createForm, deleteForm, getForm, listForms, updateForm } from './forms.service.ts';

const MANAGERS_ONLY = 'Forms are configured by managers and owners';
const TAGS = ['Forms'];

export const formsRoutes: FastifyPluginAsyncTypebox<{ database: Database }> = async (app, { database }) => {
  app.get(
    '/forms',
    {
      schema: {
        operationId: 'forms.list',
        tags: TAGS,
        summary: 'List the organization’s forms with their elements',
        response: { 200: Type.Array(Form), ...errors(401) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return database.tenant(caller.organizationId, (tx) => listForms(tx, caller));
    },
  );

  app.post(
    '/forms',
    {
      schema: {
        operationId: 'forms.create',
        tags: TAGS,
        summary: 'Create a form (managers)',
        description:
          'Element keys are unique within the form. SELECT elements need options, NUMBER elements may name a unit, ACTIVITY elements name an activity definition (their key defaults to its key).',
        body: FormBody,
        response: { 200: Form, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(policy.canConfigure(caller), MANAGERS_ONLY);
      return database.tenant(caller.organizationId, (tx) => createForm(tx, caller, request.body));
    },
  );

  app.get(
    '/forms/:id',
    {
      schema: {
        operationId: 'forms.get',
        tags: TAGS,
        summary: 'Get a form with its live elements',
        params: IdParams,
        response: { 200: Form, ...errors(401, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return database.tenant(caller.organizationId, (tx) => getForm(tx, caller, request.params.id));
    },
  );

  app.put(
    '/forms/:id',
    {
      schema: {
        operationId: 'forms.update',
        tags: TAGS,
        summary: 'Replace a form and its element list (managers)',
        description:
          'Elements are matched to stored ones by `id`, else by `key`; unmatched ones are added. Elements left out are soft-deleted and their values kept; naming a deleted element’s `id` restores it. The type or unit of an element with values, and the period type of a form with values, cannot change.',
        params: IdParams,
        body: FormBody,
        response: { 200: Form, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(policy.canConfigure(caller), MANAGERS_ONLY);
      return database.tenant(caller.organizationId, (tx) =>
        updateForm(tx, caller, request.params.id, request.body),
      );
    },
  );

  app.delete(
    '/forms/:id',
    {
      schema: {
        operationId: 'forms.delete',
        tags: TAGS,
        summary: 'Delete a form (managers)',
        description:
          'A soft delete: the form, its elements and its submissions leave the API; the stored values are kept.',
        params: IdParams,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      authorize(policy.canConfigure(caller), MANAGERS_ONLY);
      await database.tenant(caller.organizationId, (tx) => deleteForm(tx, caller, request.params.id));
      return { success: true };
    },
  );
};
