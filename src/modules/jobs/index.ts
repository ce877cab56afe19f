/** The jobs module's front door: the durable job queue (decision 216). */
import { enqueueMails } from './jobs.mail.ts';
import { jobsRepository } from './jobs.repository.ts';

export type { ClaimedJob, NewJob } from './jobs.repository.ts';

/** What other modules do with the queue: put jobs on it (in their own transaction), count them. */
export const jobs = {
  /** Queues jobs in the caller's transaction: they exist exactly when it commits. */
  enqueue: jobsRepository.insert,
  /** Queues e-mails in the caller's transaction, sent by a worker once it commits (decision 232). */
  enqueueMails,
  /** Jobs per kind and state, for /metrics. */
  counts: jobsRepository.counts,
};
export { MAIL_ATTEMPTS, MAIL_JOB, mailHandler } from './jobs.mail.ts';
export {
  type Backoff,
  exponentialBackoff,
  type JobHandler,
  JobRunner,
  PermanentJobError,
  PRUNE_JOB,
  type RunnerOptions,
} from './jobs.runner.ts';
