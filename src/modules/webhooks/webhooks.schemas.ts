import Type, { type Static } from 'typebox';
import { Pagination, pageQuery } from '../../http/paging.ts';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';
import { WEBHOOK_EVENTS } from './webhooks.events.ts';

const EventName = Type.Union(
  WEBHOOK_EVENTS.map((e) => Type.Literal(e)),
  {
    description:
      'value.submitted (values stored by POST /form-submissions), value.reviewed (approved or rejected; a bulk review lists the values whose status changed), period.completed (a form-site period became complete: every expected element reported; once per transition, again only after it became incomplete), period.locked (locks newly made), import.finished (an executed import completed or failed). No export.ready: exports are not jobs',
  },
);
const Events = Type.Array(EventName, {
  minItems: 1,
  uniqueItems: true,
  description: 'The events to receive',
});
const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description:
    'Where deliveries are POSTed: an http:// or https:// URL whose host is not on a private or loopback network (unless SDCS_WEBHOOKS_ALLOW_PRIVATE=true)',
});
const Description = Type.String({ maxLength: 500, description: 'What the endpoint is for, in your words' });

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description) },
  {
    additionalProperties: false,
    examples: [
      { url: 'https://bi.example.com/hooks/sdcs', events: ['period.locked'], description: 'BI refresh' },
    ],
  },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    enabled: Type.Optional(
      Type.Boolean({ description: 'false stops deliveries; true turns a disabled endpoint back on' }),
    ),
  },
  { additionalProperties: false, examples: [{ enabled: true }] },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const Webhook = Type.Object({
  id: Uuid,
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(EventName),
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String({ description: 'Why the endpoint is disabled' })),
  createdBy: {
    ...Uuid,
    description: 'The owner who registered it: deliveries stop if they are no longer an owner',
  },
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const WebhookWithSecret = Type.Object({
  ...Webhook.properties,
  secret: Type.String({
    description:
      'The signing secret (whsec_…, Standard Webhooks). Shown only in this answer: store it now to verify the webhook-signature header',
  }),
});

export const Delivery = Type.Object({
  id: { ...Uuid, description: 'The delivery id: the webhook-id header of every attempt and re-delivery' },
  eventType: EventName,
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  lastStatusCode: Nullable(Type.Integer({ description: 'The status the endpoint answered last' })),
  lastError: Nullable(Type.String()),
  createdAt: DateTime,
  lastAttemptAt: Nullable(DateTime),
  deliveredAt: Nullable(DateTime),
  payload: Type.Unknown({ description: 'The event data (the `data` of the body sent)' }),
});

export const DeliveriesQuery = Type.Object(pageQuery('Deliveries'), { additionalProperties: false });
export const DeliveryPage = Type.Object({ items: Type.Array(Delivery), pagination: Pagination });
export const DeliveryParams = Type.Object({
  id: Type.String({ description: 'The endpoint' }),
  deliveryId: Type.String({ description: 'The delivery' }),
});
