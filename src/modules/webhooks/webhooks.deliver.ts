import type { FastifyBaseLogger } from 'fastify';
import { Webhook } from 'standardwebhooks';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../domain/clock.ts';
import type { Sealer } from '../../lib/secrets.ts';
import type { Mailer } from '../../mail/mailer.ts';
import type { ClaimedJob } from '../jobs/index.ts';
import { type DeliveryToSend, webhooksRepository as repo } from './webhooks.repository.ts';
import { type SendOutcome, sendDelivery } from './webhooks.send.ts';

export interface DeliveryDeps {
  database: Database;
  clock: Clock;
  sealer: Sealer;
  mailer: Mailer;
  log: FastifyBaseLogger;
  publicUrl: string;
  /** SDCS_WEBHOOKS_TIMEOUT_SECONDS, in ms. */
  timeoutMs: number;
  /** SDCS_WEBHOOKS_ALLOW_PRIVATE. */
  allowPrivate: boolean;
}

/** The body a receiver gets (Standard Webhooks' recommended envelope). */
export function envelope(delivery: Pick<DeliveryToSend, 'event_type' | 'created_at' | 'payload'>): string {
  return JSON.stringify({
    type: delivery.event_type,
    timestamp: delivery.created_at.toISOString(),
    data: delivery.payload,
  });
}

/** The three Standard Webhooks headers of one attempt, signed with the endpoint's secret. */
export function signedHeaders(secret: string, id: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

/**
 * The job handler of `webhook.deliver` (decision 217): one attempt at one delivery. A success or
 * a delivery that can no longer go (endpoint disabled, its owner no longer an owner) ends the
 * job; a failure throws, so the queue retries it after its back-off; the last failure disables
 * the endpoint and tells its owner by e-mail.
 */
export function deliveryHandler(deps: DeliveryDeps) {
  return async (job: ClaimedJob): Promise<void> => {
    const id = String(job.payload['deliveryId']);
    const delivery = await deps.database.system((tx) => repo.toSend(tx, id));
    if (!delivery || delivery.status === 'delivered') return;
    if (!delivery.enabled) {
      await deps.database.system((tx) => repo.fail(tx, id, 'The endpoint is disabled'));
      return;
    }
    // Payloads carry only what the endpoint's owner may read: an owner reads every site, and an
    // endpoint whose owner is no longer one stops (decision 217).
    if (delivery.owner_role !== 'OWNER') {
      await deps.database.system(async (tx) => {
        await repo.fail(tx, id, 'The person who registered the endpoint is no longer an owner');
        await repo.disable(tx, delivery.endpoint_id, 'The person who registered it is no longer an owner');
      });
      return;
    }
    const at = deps.clock();
    const body = envelope(delivery);
    let outcome: SendOutcome;
    try {
      const headers = signedHeaders(deps.sealer.open(delivery.secret_sealed), id, at, body);
      outcome = await sendDelivery(delivery.url, headers, body, deps);
    } catch (error) {
      outcome = { ok: false, status: null, error: (error as Error).message };
    }
    const last = !outcome.ok && job.attempts >= job.max_attempts;
    const status = outcome.ok ? 'delivered' : last ? 'failed' : 'pending';
    const disabled = await deps.database.system(async (tx) => {
      await repo.recordAttempt(tx, id, { status, code: outcome.status, error: outcome.error, at });
      return last
        ? repo.disable(tx, delivery.endpoint_id, `Deliveries failed for ${job.attempts} attempts`)
        : false;
    });
    if (disabled) await tellOwner(deps, delivery, outcome);
    if (!outcome.ok && !last) throw new Error(outcome.error ?? 'delivery failed');
  };
}

async function tellOwner(deps: DeliveryDeps, delivery: DeliveryToSend, outcome: SendOutcome) {
  try {
    await deps.mailer.send({
      to: delivery.owner_email,
      subject: 'A webhook endpoint of yours was turned off',
      text: [
        `Deliveries to ${delivery.url} kept failing for more than a day, so the service stopped sending to it.`,
        `The last attempt: ${outcome.error ?? 'no answer'}.`,
        '',
        'Once the receiver works again, turn the endpoint back on (PUT /webhooks/{id} with "enabled": true) and send the missed deliveries again from its delivery log.',
        `${deps.publicUrl}/docs`,
      ].join('\n'),
    });
  } catch (error) {
    deps.log.error({ err: error }, 'the e-mail about a disabled webhook endpoint was not sent');
  }
}
