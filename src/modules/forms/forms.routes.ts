import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errorAnswer, errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { Form, FormBody } from './forms.schemas.ts';
import {
  createForm,
  deleteForm,
  FORMS_ORGANIZATION_WIDE,
  getForm,
  listForms,
  updateForm,
} from './forms.service.ts';

const TAGS = ['Forms'];

const WHO_CHANGES =
  'A form shapes the figures of every site where it is active: owners, and managers whose sites cover the whole organization, may create, change and delete forms; a manager limited to some sites is refused (403). Where a form is active is set per site with PUT /form-sites.';

/** The 403 of the writes: the site limit is the example. */
const forbiddenWrite = () =>
  errorAnswer(
    'A manager limited to some sites (the example), or a role below MANAGER (“This needs the MANAGER role or higher; your role is COLLECTOR”)',
    'FORBIDDEN',
    FORMS_ORGANIZATION_WIDE,
  );

export const formsRoutes: FastifyPluginAsyncTypebox<Services> = async (app) => {
  app.get(
    '/forms',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'forms.list',
        tags: TAGS,
        summary: 'List the organization’s forms with their elements',
        response: { 200: Type.Array(Form), ...errors(401) },
      },
    },
    (request) => request.tenant((tx, caller) => listForms(tx, caller)),
  );

  app.post(
    '/forms',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'forms.create',
        tags: TAGS,
        summary: 'Create a form (managers)',
        description: [
          'Element keys are unique within the form. SELECT elements need options, NUMBER elements may name a unit, ACTIVITY elements name an activity definition (their key defaults to its key).',
          WHO_CHANGES,
        ].join(' '),
        body: FormBody,
        response: { 200: Form, ...errors(400, 401), 403: forbiddenWrite() },
      },
    },
    (request) => request.tenant((tx, caller) => createForm(tx, caller, request.body)),
  );

  app.get(
    '/forms/:id',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'forms.get',
        tags: TAGS,
        summary: 'Get a form with its live elements',
        params: IdParams,
        response: { 200: Form, ...errors(401, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => getForm(tx, caller, request.params.id)),
  );

  app.put(
    '/forms/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'forms.update',
        tags: TAGS,
        summary: 'Replace a form and its element list (managers)',
        description: [
          'Elements are matched to stored ones by `id`, else by `key`; unmatched ones are added. Elements left out are soft-deleted and their values kept; naming a deleted element’s `id` restores it. The type or unit of an element with values, and the period type of a form with values, cannot change; nor can the aggregation of an element with values in a locked period (400 naming the lock).',
          WHO_CHANGES,
        ].join(' '),
        params: IdParams,
        body: FormBody,
        response: { 200: Form, ...errors(400, 401, 404), 403: forbiddenWrite() },
      },
    },
    (request) => request.tenant((tx, caller) => updateForm(tx, caller, request.params.id, request.body)),
  );

  app.delete(
    '/forms/:id',
    {
      config: { minRole: 'MANAGER' },
      schema: {
        operationId: 'forms.delete',
        tags: TAGS,
        summary: 'Delete a form (managers)',
        description: [
          'A soft delete: the form, its elements and its submissions leave the API; the stored values are kept.',
          WHO_CHANGES,
        ].join(' '),
        params: IdParams,
        response: {
          200: Type.Object({ success: Type.Boolean() }),
          ...errors(401, 404),
          403: forbiddenWrite(),
        },
      },
    },
    async (request) => {
      await request.tenant((tx, caller) => deleteForm(tx, caller, request.params.id));
      return { success: true };
    },
  );
};
