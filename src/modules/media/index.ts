/** The media module's front door: what other modules (and the composition root) may use. */
export { scheduleMediaCleanup } from './media.cleanup.ts';
export { fileElementHandler } from './media.element.ts';
export { mediaRoutes } from './media.routes.ts';
