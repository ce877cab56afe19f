import type { Tx } from '../../db/client.ts';
import { jobs } from '../jobs/index.ts';
import { webhooksRepository as repo } from './webhooks.repository.ts';

/** The events an endpoint can ask for (decision 217). */
export const WEBHOOK_EVENTS = [
  'value.submitted',
  'value.reviewed',
  'period.completed',
  'period.locked',
  'import.finished',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The job kind that sends one delivery. */
export const DELIVER_JOB = 'webhook.deliver';

/**
 * Attempts per delivery: with the back-off of 5 s ×4 each time, capped at 12 h, ten attempts span
 * about 31.6 hours (5 s + 20 s + 80 s + 5.3 min + 21 min + 85 min + 5.7 h + 12 h + 12 h).
 */
export const DELIVERY_ATTEMPTS = 10;

/**
 * Records an event for every enabled endpoint of the organization that asked for it: one delivery
 * row and one job each, in the caller's transaction, so the event is kept exactly when the write
 * that caused it commits (an outbox). Costs one indexed read when no endpoint wants it.
 */
export async function emitEvent(
  tx: Tx,
  organizationId: string,
  type: WebhookEvent,
  data: unknown,
): Promise<void> {
  const endpoints = await repo.subscribed(tx, organizationId, type);
  if (endpoints.length === 0) return;
  const deliveries = await repo.insertDeliveries(tx, organizationId, endpoints, type, data);
  await jobs.enqueue(
    tx,
    deliveries.map((deliveryId) => ({
      kind: DELIVER_JOB,
      organizationId,
      payload: { deliveryId },
      maxAttempts: DELIVERY_ATTEMPTS,
    })),
  );
}

/** A stored value as the values write path answers it (only the fields events carry). */
interface ValueLike {
  formElementSubmissionId: string;
  elementId: string;
  elementKey: string;
  periodUnit: number;
  timestamp: string | null;
  status: string;
  value: unknown;
  selectedUnitId: string | null;
  recordedAt: string;
  deletedAt: string | null;
}

const valueData = (v: ValueLike) => ({
  id: v.formElementSubmissionId,
  elementId: v.elementId,
  elementKey: v.elementKey,
  periodUnit: v.periodUnit,
  timestamp: v.timestamp,
  status: v.status,
  value: v.value,
  selectedUnitId: v.selectedUnitId,
  recordedAt: v.recordedAt,
  deletedAt: v.deletedAt,
});

/** The event helpers the write paths call (each one line at its call site). */
export const webhookEvents = {
  /** POST /form-submissions stored values: the submission and the values of that request. */
  valuesSubmitted(
    tx: Tx,
    submission: {
      id: string;
      organizationId: string;
      formId: string;
      siteId: string;
      year: number;
      userId: string;
      values: ValueLike[];
    },
  ) {
    if (submission.values.length === 0) return Promise.resolve();
    return emitEvent(tx, submission.organizationId, 'value.submitted', {
      submissionId: submission.id,
      formId: submission.formId,
      siteId: submission.siteId,
      year: submission.year,
      userId: submission.userId,
      values: submission.values.map(valueData),
    });
  },

  /** A value was approved or rejected (a review changed its status). */
  valueReviewed(tx: Tx, organizationId: string, value: ValueLike, comment: string | null) {
    return emitEvent(tx, organizationId, 'value.reviewed', { ...valueData(value), comment });
  },

  /** Several values were approved or rejected at once. */
  valuesReviewed(
    tx: Tx,
    organizationId: string,
    review: { ids: string[]; status: string; comment: string | null },
  ) {
    return emitEvent(tx, organizationId, 'value.reviewed', {
      valueIds: review.ids,
      status: review.status,
      comment: review.comment,
    });
  },

  /** Periods were locked (one event per lock). */
  async periodsLocked(
    tx: Tx,
    organizationId: string,
    locks: {
      id: string;
      formId: string;
      year: number;
      periodUnit: number | null;
      siteId: string | null;
      createdBy: string;
      createdAt: string;
    }[],
  ) {
    for (const lock of locks)
      await emitEvent(tx, organizationId, 'period.locked', {
        lockId: lock.id,
        formId: lock.formId,
        year: lock.year,
        periodUnit: lock.periodUnit,
        siteId: lock.siteId,
        lockedBy: lock.createdBy,
        lockedAt: lock.createdAt,
      });
  },

  /** An import run ended (completed or failed; previews are not events). */
  importFinished(
    tx: Tx,
    organizationId: string,
    run: { id: string; sourceAdapterDefinitionId: string; status: string; userId: string },
    counts: Record<string, number>,
  ) {
    return emitEvent(tx, organizationId, 'import.finished', {
      runId: run.id,
      sourceAdapterDefinitionId: run.sourceAdapterDefinitionId,
      status: run.status,
      userId: run.userId,
      counts,
    });
  },
};
