/** The activities module's front door: what other modules (and the composition root) may use. */

export type { CalcJob, CalcOutcome, UsedCoefficient } from './activities.calculate.ts';
export {
  type CalcLimits,
  CalcSession,
  cancelled,
  DEFAULT_CALC_LIMITS,
  failed,
  failureMessage,
} from './activities.calculate.ts';
export { activityElementHandler } from './activities.element.ts';
export {
  type ActivityInput,
  checkActivityInput,
  datesOutsidePeriod,
  MAX_ACTIVITIES_PER_VALUE,
} from './activities.inputs.ts';
export { activitiesRoutes } from './activities.routes.ts';
