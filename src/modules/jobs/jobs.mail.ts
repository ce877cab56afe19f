import type { Tx } from '../../db/client.ts';
import type { Mailer, MailMessage } from '../../mail/mailer.ts';
import { jobsRepository } from './jobs.repository.ts';
import type { JobHandler } from './jobs.runner.ts';

/** The job kind that sends one e-mail (decision 232). */
export const MAIL_JOB = 'mail.send';

/**
 * Attempts per e-mail: with the queue's back-off (5 s ×4 each time) eight attempts span about
 * 7.6 hours (5 s + 20 s + 80 s + 5.3 min + 21 min + 85 min + 5.7 h), enough for a mail server's
 * restart or a night's outage, short enough that a reminder still means something.
 */
export const MAIL_ATTEMPTS = 8;

/**
 * Queues e-mails in the caller's transaction: each is sent by one worker after the transaction
 * commits, never for a write that rolled back, and retried with back-off when the driver fails.
 * The message is written now (in the recipient's language), so the job only hands it over; it is
 * due at `now`, the service's clock, which the workers compare with.
 */
export function enqueueMails(tx: Tx, organizationId: string, messages: readonly MailMessage[], now: Date) {
  return jobsRepository.insert(
    tx,
    messages.map((message) => ({
      kind: MAIL_JOB,
      organizationId,
      payload: { message: { ...message } },
      maxAttempts: MAIL_ATTEMPTS,
      runAfter: now,
    })),
  );
}

/** Sends a queued e-mail with the configured driver; a driver's error is a failed attempt. */
export const mailHandler =
  (mailer: Mailer): JobHandler =>
  async (job) => {
    await mailer.send(job.payload.message as MailMessage);
  };
