/** The health module's front door: what other modules (and the composition root) may use. */
export { healthRoutes } from './health.routes.ts';
