/** The targets module's front door: what other modules (and the composition root) may use. */
export { targetsRepository } from './targets.repository.ts';
export { targetsRoutes } from './targets.routes.ts';
export type { TargetEntry } from './targets.schemas.ts';
export { readableEntries } from './targets.service.ts';
