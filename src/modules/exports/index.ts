/** The exports module's front door: what other modules (and the composition root) may use. */
export { exportsRoutes } from './exports.routes.ts';
