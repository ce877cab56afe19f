/** The form-sites module's front door: what other modules (and the composition root) may use. */
export { formSitesRepository } from './form-sites.repository.ts';
export { formSitesRoutes } from './form-sites.routes.ts';
