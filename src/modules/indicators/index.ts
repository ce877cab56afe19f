/** The indicators module's front door: what other modules (and the composition root) may use. */

export { prepare } from './indicators.operands.ts';
export { formatNumber } from './indicators.present.ts';
export { findElement } from './indicators.references.ts';
export { indicatorsRoutes } from './indicators.routes.ts';
export type { CurrentValue, ExpressionPart, WidgetUsage } from './indicators.schemas.ts';
export { indicatorSeries, type SeriesGrouping, type SeriesResult } from './indicators.series.ts';
export { listIndicators } from './indicators.service.ts';
export { registerWidgetUsage } from './indicators.usage.ts';
export { currentValues } from './indicators.values.ts';
export { verifyAllTotals } from './totals.verify.ts';
