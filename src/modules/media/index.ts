/** The media module's front door: what other modules (and the composition root) may use. */
export { CLEANUP_INTERVAL_MS, cleanupPendingMedia, MEDIA_CLEANUP_JOB } from './media.cleanup.ts';
export { fileElementHandler } from './media.element.ts';
export { mediaRoutes } from './media.routes.ts';
