/** The jobs module's front door: the durable job queue (decision 216). */
export { type ClaimedJob, jobsRepository, type NewJob } from './jobs.repository.ts';
export {
  type Backoff,
  exponentialBackoff,
  type JobHandler,
  JobRunner,
  PermanentJobError,
  type RunnerOptions,
} from './jobs.runner.ts';
