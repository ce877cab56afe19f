/** The completeness module's front door: what other modules (and the composition root) may use. */

export { completenessSource, verifyAllCompleteness } from './completeness.kept.ts';
export { LAST_PERIOD, periodLabel } from './completeness.periods.ts';
export { completenessRoutes } from './completeness.routes.ts';
