/** The sites module's front door: what other modules (and the composition root) may use. */
import { sitesRepository } from './sites.repository.ts';

export { sitesRoutes } from './sites.routes.ts';
export { SiteTree, siteTree, siteTreeCache } from './sites.tree.ts';

/** What other modules may ask of sites. */
export const sites = {
  /** The ids among `ids` that are sites of the organization (non-UUIDs never are). */
  existing: sitesRepository.existingIds,
};
