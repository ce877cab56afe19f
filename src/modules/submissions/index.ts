/** The submissions module's front door: what other modules (and the composition root) may use. */
import { submissionsRepository } from './submissions.repository.ts';

export { KEY_CLEANUP_INTERVAL_MS, KEY_CLEANUP_JOB, removeExpiredKeys } from './submissions.keys.ts';
export { submissionsQueueRoutes } from './submissions.queue.routes.ts';
export { submissionsRoutes } from './submissions.routes.ts';

/** What other modules may ask of submissions' reads (the activity markers use them). */
export const submissions = {
  /** A site of the organization (its id and name), or undefined. */
  siteExists: submissionsRepository.siteExists,
  /** The form-site of (form, site, year) if it is active, or undefined. */
  activeFormSite: submissionsRepository.activeFormSite,
};
