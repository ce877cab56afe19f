/** The organizations module's front door: what other modules (and the composition root) may use. */
export { bootstrapIfEmpty, createOrganizationWithKey } from './bootstrap.ts';
export { organizationsRoutes } from './organizations.routes.ts';
export { createOrganizationWithOwner } from './organizations.service.ts';
