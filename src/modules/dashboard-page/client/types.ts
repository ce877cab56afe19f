import type { paths } from '../../../api-types/openapi';

// The public dashboards API's shapes, read from the types generated from the OpenAPI document
// (src/api-types/openapi.d.ts): a field the service renames is a compile error here.
type ViewOperation = paths['/api/v1/public/dashboards/{id}']['get'];
type AccessOperation = paths['/api/v1/public/dashboards/{id}/access']['post'];

export type View = ViewOperation['responses'][200]['content']['application/json'];
export type ViewWidget = View['widgets'][number];
export type ViewWidgetConfig = ViewWidget['config'];
export type ViewWidgetData = View['data'][number];
export type ViewWidgetIssue = ViewWidgetData['issues'][number];
export type ViewSeries = ViewWidgetData['series'][number];
export type SeriesIssue = ViewSeries['issues'][number];
export type Point = ViewSeries['points'][number];
export type ViewTarget = ViewSeries['targets'][number];
export type Theme = View['dashboard']['widgetTheme'];
export type AggregateLines = NonNullable<Theme['aggregateLines']>;
export type ViewSite = View['sites'][number];
export type AccessRequest = AccessOperation['requestBody']['content']['application/json'];
export type Granted = AccessOperation['responses'][200]['content']['application/json'];
export type CodeSentAnswer = AccessOperation['responses'][202]['content']['application/json'];

/** An error body as the service sends it (code, message, issues; the gate adds its needs). */
export interface Problem {
  message?: string;
  issues?: Array<{ message?: string }>;
  requiresPassword?: boolean;
  requiresEmail?: boolean;
}

/** A value as the page shows it: a point of the API, or a raw number of a chart's tooltip. */
export interface Shown {
  value: number | null;
  formatted?: string | null;
}
