/** The jobs module's front door: the durable job queue (decision 216). */
import { jobsRepository } from './jobs.repository.ts';

export type { ClaimedJob, NewJob } from './jobs.repository.ts';

/** What other modules do with the queue: put jobs on it (in their own transaction), count them. */
export const jobs = {
  /** Queues jobs in the caller's transaction: they exist exactly when it commits. */
  enqueue: jobsRepository.insert,
  /** Jobs per kind and state, for /metrics. */
  counts: jobsRepository.counts,
};
export {
  type Backoff,
  exponentialBackoff,
  type JobHandler,
  JobRunner,
  PermanentJobError,
  type RunnerOptions,
} from './jobs.runner.ts';
