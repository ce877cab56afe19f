/** The indicators module's front door: what other modules (and the composition root) may use. */
export { findElement } from './indicators.references.ts';
export { indicatorsRoutes } from './indicators.routes.ts';
export type { ExpressionPart, WidgetUsage } from './indicators.schemas.ts';
export { indicatorSeries, type SeriesGrouping, type SeriesResult } from './indicators.series.ts';
export { listIndicators } from './indicators.service.ts';
export { registerWidgetUsage } from './indicators.usage.ts';
export { type CurrentValue, currentValues, formatNumber, prepare } from './indicators.values.ts';
export { verifyAllTotals } from './totals.verify.ts';
