/** The access module's front door: what other modules (and the composition root) may use. */
export { policy, type SiteScope } from './access.policy.ts';
export { inSiteScope } from './access.repository.ts';
export { siteScope } from './site-scope.ts';
export { coversOrganization } from './whole-organization.ts';
