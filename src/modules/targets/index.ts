/** The targets module's front door: what other modules (and the composition root) may use. */
import { targetLines } from './targets.lines.ts';

export type { TargetContext } from './targets.lines.ts';
export { seriesPeriodLabel } from './targets.periods.ts';
export { targetsRoutes } from './targets.routes.ts';

/** What a target means beside the data: what other modules may ask of targets. */
export const targets = {
  /**
   * The lines the targets of a series' indicator draw on it (a yearly glide path from the
   * baseline's actual value, split over months or quarters when the indicator is a sum over
   * time), only of the entries the viewer may read, and why a target yields no line.
   */
  linesFor: targetLines,
};
