/** The form-sites module's front door: what other modules (and the composition root) may use. */
import { formSitesRepository } from './form-sites.repository.ts';

export { formSitesRoutes } from './form-sites.routes.ts';

/** What other modules may do with the (form, site, year) triples. */
export const formSites = {
  /** Activates a form for (site, year) pairs, reviving earlier rows so that their data reappears. */
  activate: formSitesRepository.activate,
};
