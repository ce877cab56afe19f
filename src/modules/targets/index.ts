/** The targets module's front door: what other modules (and the composition root) may use. */
import { readableTargets } from './targets.service.ts';

export { targetsRoutes } from './targets.routes.ts';
export type { TargetEntry } from './targets.schemas.ts';

/** What other modules may read of targets. */
export const targets = {
  /** The targets of an indicator, each with only the entries the viewer may read. */
  readable: readableTargets,
};
