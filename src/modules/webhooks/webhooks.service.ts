import { randomBytes } from 'node:crypto';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { conflict, invalidField, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { type Page, paginationOf } from '../../http/paging.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Sealer } from '../../lib/secrets.ts';
import { jobs } from '../jobs/index.ts';
import { BlockedAddressError, resolvePublic, urlProblem } from './webhooks.address.ts';
import { DELIVER_JOB, DELIVERY_ATTEMPTS } from './webhooks.events.ts';
import { type DeliveryRow, type EndpointRow, webhooksRepository as repo } from './webhooks.repository.ts';
import type { CreateWebhookBody, UpdateWebhookBody } from './webhooks.schemas.ts';

/** A new signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const present = (row: EndpointRow) => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: row.events as never[],
  enabled: row.enabled,
  disabledReason: row.disabled_reason,
  createdBy: row.created_by,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

const presentDelivery = (row: DeliveryRow) => ({
  id: row.id,
  eventType: row.event_type as never,
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  createdAt: iso(row.created_at),
  lastAttemptAt: iso(row.last_attempt_at),
  deliveredAt: iso(row.delivered_at),
  payload: row.payload,
});

/**
 * Refuses (400 naming `url`) a URL that is not http(s), or whose host is or resolves to a private
 * or loopback address unless that is allowed. A name that does not resolve now is accepted: it
 * is checked again at every delivery (decision 218).
 */
export async function checkEndpointUrl(url: string, allowPrivate: boolean): Promise<void> {
  const problem = urlProblem(url);
  if (problem) throw invalidField('url', `The endpoint URL ${problem}`);
  try {
    await resolvePublic(new URL(url).hostname, allowPrivate);
  } catch (error) {
    if (error instanceof BlockedAddressError)
      throw invalidField(
        'url',
        `The endpoint URL points to a private or loopback address, which webhooks may not reach on this service`,
      );
  }
}

async function endpointOf(tx: Tx, caller: Caller, id: string): Promise<EndpointRow> {
  const row = isUuid(id) ? await repo.get(tx, caller.organizationId, id) : undefined;
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

export async function createWebhook(tx: Tx, caller: Caller, body: CreateWebhookBody, sealer: Sealer) {
  const secret = newSecret();
  const row = await repo.insert(tx, caller.organizationId, {
    createdBy: caller.userId,
    url: body.url,
    description: body.description ?? '',
    events: body.events,
    secretSealed: sealer.seal(secret),
  });
  return { ...present(row), secret };
}

export async function listWebhooks(tx: Tx, caller: Caller) {
  return (await repo.list(tx, caller.organizationId)).map(present);
}

export async function updateWebhook(tx: Tx, caller: Caller, id: string, body: UpdateWebhookBody) {
  const row = await endpointOf(tx, caller, id);
  const updated = await repo.update(tx, caller.organizationId, row.id, {
    url: body.url ?? row.url,
    description: body.description ?? row.description,
    events: body.events ?? row.events,
    enabled: body.enabled ?? row.enabled,
  });
  return present(updated!);
}

export async function deleteWebhook(tx: Tx, caller: Caller, id: string): Promise<void> {
  const row = await endpointOf(tx, caller, id);
  await repo.remove(tx, caller.organizationId, row.id);
}

/** A new secret replaces the old one at once; the answer is the only place it is shown. */
export async function rotateSecret(tx: Tx, caller: Caller, id: string, sealer: Sealer) {
  const row = await endpointOf(tx, caller, id);
  const secret = newSecret();
  const updated = await repo.update(tx, caller.organizationId, row.id, {
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    secretSealed: sealer.seal(secret),
  });
  return { ...present(updated!), secret };
}

export async function listDeliveries(tx: Tx, caller: Caller, id: string, page: Page) {
  const row = await endpointOf(tx, caller, id);
  const rows = await repo.deliveries(tx, caller.organizationId, row.id, page);
  const total = rows[0] ? Number(rows[0].total) : 0;
  return { items: rows.map(presentDelivery), pagination: paginationOf(page, rows.length, total) };
}

/**
 * Sends a delivery again, with the same webhook-id, as a new job with a full set of attempts.
 * A disabled endpoint is a 409: turn it on first.
 */
export async function redeliver(tx: Tx, caller: Caller, id: string, deliveryId: string) {
  const endpoint = await endpointOf(tx, caller, id);
  const delivery = isUuid(deliveryId)
    ? await repo.delivery(tx, caller.organizationId, endpoint.id, deliveryId)
    : undefined;
  if (!delivery) throw notFound('Delivery');
  if (!endpoint.enabled)
    throw conflict('The endpoint is disabled: turn it on (PUT with "enabled": true) before sending again');
  await repo.markPending(tx, caller.organizationId, delivery.id);
  await jobs.enqueue(tx, [
    {
      kind: DELIVER_JOB,
      organizationId: caller.organizationId,
      payload: { deliveryId: delivery.id },
      maxAttempts: DELIVERY_ATTEMPTS,
    },
  ]);
  return presentDelivery({ ...delivery, status: 'pending' });
}
