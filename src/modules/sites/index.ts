/** The sites module's front door: what other modules (and the composition root) may use. */
export { sitesRepository } from './sites.repository.ts';
export { sitesRoutes } from './sites.routes.ts';
export { SiteTree, siteTree, siteTreeCache } from './sites.tree.ts';
