import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { AppError, badRequest, coded, invalidField } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { policy, siteScope } from '../access/index.ts';
import { jobs } from '../jobs/index.ts';
import { snapshotOf, writeReviews } from '../values/index.ts';
import { webhookEvents } from '../webhooks/index.ts';
import {
  type QueueKey,
  type QueueRow,
  type ReviewRow,
  queueRepository as repo,
} from './submissions.queue.repository.ts';
import {
  type BulkReviewBody,
  type BulkReviewResult,
  QUEUE_PAGE,
  type QueueItem,
  type QueuePage,
  type QueueQuery,
} from './submissions.queue.schemas.ts';
import { rejectionMail } from './submissions.rejection-mail.ts';

/** Rejection e-mails one person gets at most in 24 hours; rejections past it are only on their home. */
export const MAX_REJECTION_MAILS_PER_DAY = 10;
const DAY_MS = 24 * 60 * 60 * 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The cursor of the page after `row`: its exact recorded time and id, opaque to clients. */
const cursorOf = (row: QueueRow) => Buffer.from(`${row.recorded_micros}.${row.id}`).toString('base64url');

function keyOf(cursor: string): QueueKey {
  const [micros, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  if (!micros || !/^\d{1,17}$/.test(micros) || !id || !UUID.test(id))
    throw invalidField('after', 'after must be the nextCursor of a previous page of this list');
  return { micros, id };
}

function present(r: QueueRow): QueueItem {
  return {
    formElementSubmissionId: r.id,
    formId: r.form_id,
    formName: r.form_name,
    periodType: r.period_type,
    siteId: r.site_id,
    siteName: r.site_name,
    year: r.year,
    periodUnit: r.period_unit,
    timestamp: iso(r.timestamp),
    elementId: r.element_id,
    elementKey: r.element_key,
    elementLabel: r.element_label,
    elementType: r.element_type,
    status: r.status,
    value: r.value,
    originalValue: r.original_value ?? null,
    selectedUnitId: r.selected_unit_id,
    activityCount: r.activity_count,
    userId: r.user_id,
    userName: r.user_name,
    userEmail: r.user_email,
    recordedAt: iso(r.recorded_at)!,
    lastReview:
      r.review_status && r.review_at
        ? {
            status: r.review_status,
            comment: r.review_comment,
            userName: r.reviewer_name ?? '',
            at: iso(r.review_at)!,
          }
        : null,
    file: r.media_id
      ? {
          mediaId: r.media_id,
          fileName: r.file_name!,
          size: r.file_size === null ? null : Number(r.file_size),
          contentType: r.content_type!,
        }
      : null,
  };
}

/** Values on the caller's sites matching the filters, oldest recorded first, by keyset pages. */
export async function listQueue(tx: Tx, caller: Caller, query: QueueQuery): Promise<QueuePage> {
  const after = query.after ? keyOf(query.after) : null;
  const scope = await siteScope(tx, caller);
  const filter = {
    ...(query.status ? { status: query.status } : {}),
    ...(query.formId ? { formId: query.formId } : {}),
    ...(query.siteId ? { siteId: query.siteId } : {}),
    ...(query.year !== undefined ? { year: query.year } : {}),
    ...(query.periodUnit !== undefined ? { periodUnit: query.periodUnit } : {}),
    siteIds: scope.all ? null : [...scope.siteIds],
  };
  const limit = query.limit ?? QUEUE_PAGE.default;
  const rows = await repo.page(tx, caller.organizationId, filter, after, limit + 1);
  const total = await repo.count(tx, caller.organizationId, filter);
  const items = rows.slice(0, limit);
  return {
    items: items.map(present),
    total,
    nextCursor: rows.length > limit ? cursorOf(items[items.length - 1]!) : null,
  };
}

/**
 * Approves or rejects every value of `ids` in one transaction: all of them, or none (an id that
 * is not a live value on a site the caller reads is a 404; a site the caller reads but does not
 * manage is a 403). Values already in the status are left alone, and only the values that changed
 * are in the `value.reviewed` event. Rejections e-mail each person who recorded rejected values
 * once, within the daily cap: the e-mails are queued as jobs in the review's transaction (sent
 * once it commits, retried with back-off: decision 232).
 */
export async function reviewValues(
  tx: Tx,
  caller: Caller,
  body: BulkReviewBody,
  deps: { now: Date; publicUrl?: string },
): Promise<BulkReviewResult> {
  const comment = body.comment?.trim() ?? '';
  if (body.status === 'REJECTED' && !comment) {
    const message = 'Write a comment to reject: the person who entered the values reads it';
    throw badRequest(message, [coded('review.commentRequired', message, undefined, 'comment')]);
  }
  const org = caller.organizationId;
  const rows = await repo.lockForReview(tx, org, body.ids);
  const scope = await siteScope(tx, caller);
  const found = new Map(rows.filter((r) => policy.canReadSite(scope, r.site_id)).map((r) => [r.id, r]));
  const missing = body.ids.findIndex((id) => !found.has(id));
  if (missing >= 0) {
    throw new AppError('NOT_FOUND', 'Value not found', [
      coded('review.valueNotFound', 'No value with this id on your sites', undefined, `ids.${missing}`),
    ]);
  }
  for (const row of found.values()) {
    if (policy.canManageSite(caller, scope, row.site_id)) continue;
    const message = `Reviewing needs manager rights on ${row.site_name}`;
    throw new AppError('FORBIDDEN', message, [coded('review.notManager', message, { site: row.site_name })]);
  }

  const changed = [...found.values()].filter((r) => r.status !== body.status);
  await writeReviews(
    tx,
    caller,
    changed.map((r) => ({ id: r.id, before: snapshotOf(r) })),
    body.status,
    comment || null,
  );
  if (changed.length > 0)
    await webhookEvents.valuesReviewed(tx, org, {
      ids: changed.map((r) => r.id),
      status: body.status,
      comment: comment || null,
    });
  const result = {
    status: body.status,
    reviewed: changed.length,
    unchanged: found.size - changed.length,
    mailed: 0,
    notMailed: 0,
  };
  if (body.status !== 'REJECTED' || changed.length === 0) return result;

  const byRecorder = new Map<string, ReviewRow[]>();
  for (const r of changed) byRecorder.set(r.user_id, [...(byRecorder.get(r.user_id) ?? []), r]);
  const sent = await repo.lockAndCountMails(
    tx,
    org,
    [...byRecorder.keys()],
    new Date(deps.now.getTime() - DAY_MS),
  );
  const mails = [];
  for (const [userId, values] of byRecorder) {
    if ((sent.get(userId) ?? 0) >= MAX_REJECTION_MAILS_PER_DAY) {
      result.notMailed++;
      continue;
    }
    await repo.logMail(tx, org, { userId, sentBy: caller.userId, valueCount: values.length, at: deps.now });
    mails.push(
      rejectionMail({
        to: values[0]!.user_email,
        name: values[0]!.user_name,
        locale: values[0]!.user_locale,
        reviewerName: caller.name,
        comment,
        rows: values,
        ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
      }),
    );
  }
  await jobs.enqueueMails(tx, org, mails, deps.now);
  result.mailed = mails.length;
  return result;
}
