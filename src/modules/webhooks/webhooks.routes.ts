import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { pageOf } from '../../http/paging.ts';
import { errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import {
  CreateWebhookBody,
  DeliveriesQuery,
  Delivery,
  DeliveryPage,
  DeliveryParams,
  UpdateWebhookBody,
  Webhook,
  WebhookWithSecret,
} from './webhooks.schemas.ts';
import {
  checkEndpointUrl,
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  rotateSecret,
  updateWebhook,
} from './webhooks.service.ts';

const TAGS = ['Webhooks'];
const SIGNING =
  'Each delivery is a POST of `{type, timestamp, data}` signed per Standard Webhooks: headers `webhook-id` (the delivery id, the same on every retry), `webhook-timestamp` and `webhook-signature` (`v1,` HMAC-SHA256 with the endpoint secret). A delivery that does not get a 2xx within SDCS_WEBHOOKS_TIMEOUT_SECONDS is retried with exponential back-off (5 s, ×4 each time, at most 12 h apart) for about 31 hours; redirects are not followed. When the last attempt fails, the endpoint is disabled and its owner gets an e-mail.';

export const webhooksRoutes: FastifyPluginAsyncTypebox<Services> = async (app, { webhookSealer, config }) => {
  const sealer = webhookSealer;
  const allowPrivate = config.webhooksAllowPrivate;
  app.post(
    '/webhooks',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'webhooks.create',
        tags: TAGS,
        summary: 'Register a webhook endpoint (owners)',
        description: `The answer holds the signing secret, shown this once. ${SIGNING}`,
        body: CreateWebhookBody,
        response: { 200: WebhookWithSecret, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      await checkEndpointUrl(request.body.url, allowPrivate);
      return request.tenant((tx, caller) => createWebhook(tx, caller, request.body, sealer));
    },
  );

  app.get(
    '/webhooks',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'webhooks.list',
        tags: TAGS,
        summary: 'List the organization’s webhook endpoints (owners)',
        description: 'Secrets are never listed (rotate one to get a new secret).',
        response: { 200: Type.Array(Webhook), ...errors(401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => listWebhooks(tx, caller)),
  );

  app.put(
    '/webhooks/:id',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'webhooks.update',
        tags: TAGS,
        summary: 'Change a webhook endpoint, or turn it off or on (owners)',
        description:
          'Fields left out keep their values. `enabled: true` turns back on an endpoint the service disabled.',
        params: IdParams,
        body: UpdateWebhookBody,
        response: { 200: Webhook, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      if (request.body.url !== undefined) await checkEndpointUrl(request.body.url, allowPrivate);
      return request.tenant((tx, caller) => updateWebhook(tx, caller, request.params.id, request.body));
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'webhooks.delete',
        tags: TAGS,
        summary: 'Remove a webhook endpoint and its delivery log (owners)',
        params: IdParams,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      await request.tenant((tx, caller) => deleteWebhook(tx, caller, request.params.id));
      return { success: true };
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'webhooks.rotateSecret',
        tags: TAGS,
        summary: 'Replace an endpoint’s signing secret (owners)',
        description:
          'The new secret signs every attempt from now on, retries included; it is shown only in this answer.',
        params: IdParams,
        response: { 200: WebhookWithSecret, ...errors(401, 403, 404) },
      },
    },
    (request) => request.tenant((tx, caller) => rotateSecret(tx, caller, request.params.id, sealer)),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'webhooks.deliveries',
        tags: TAGS,
        summary: 'The delivery log of an endpoint, newest first (owners)',
        params: IdParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveryPage, ...errors(400, 401, 403, 404) },
      },
    },
    (request) =>
      request.tenant((tx, caller) => listDeliveries(tx, caller, request.params.id, pageOf(request.query))),
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'webhooks.redeliver',
        tags: TAGS,
        summary: 'Send a delivery again (owners)',
        description:
          'Queues the delivery again with the same webhook-id and a full set of attempts. 409 when the endpoint is disabled.',
        params: DeliveryParams,
        response: { 202: Delivery, ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const delivery = await request.tenant((tx, caller) =>
        redeliver(tx, caller, request.params.id, request.params.deliveryId),
      );
      return reply.code(202).send(delivery);
    },
  );
};
