/** The apikeys module's front door: what other modules (and the composition root) may use. */
export { apiKeysRepository } from './apikeys.repository.ts';
export { apiKeysRoutes } from './apikeys.routes.ts';
