/** The submissions module's front door: what other modules (and the composition root) may use. */

export { KEY_CLEANUP_INTERVAL_MS, KEY_CLEANUP_JOB, removeExpiredKeys } from './submissions.keys.ts';
export { submissionsQueueRoutes } from './submissions.queue.routes.ts';
export { submissionsRepository } from './submissions.repository.ts';
export { submissionsRoutes } from './submissions.routes.ts';
