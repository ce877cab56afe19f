/**
 * What a dashboard shows, as the API answers it and the page at `/d/{id}` draws it. The
 * dashboards module computes `DashboardView`; the page renders one without knowing how it was
 * computed. Both sides speak these types only.
 */

export type WidgetType = 'VALUE' | 'LINE' | 'BAR' | 'TABLE';
export type PeriodGrouping = 'MONTHLY' | 'QUARTERLY' | 'YEARLY';

/** A widget's settings; every field optional, defaults in brackets. */
export interface WidgetConfig {
  /** LINE, BAR and TABLE: one point per period [YEARLY]. VALUE ignores it. */
  period?: PeriodGrouping;
  /**
   * TOTAL: one series per indicator over all filtered sites; BREAKDOWN: one per filter site;
   * CHILDREN: one per child of the filter's sites, read when the data is computed [TOTAL].
   */
  sites?: 'TOTAL' | 'BREAKDOWN' | 'CHILDREN';
  /** Add the indicator's targets beside its series [false]. */
  showTarget?: boolean;
  /** Decimal places shown in the page [as the value's formatting decides]. */
  decimals?: number;
}

export interface Widget {
  id: string;
  dashboardId: string;
  type: WidgetType;
  title: string;
  indicatorIds: string[];
  config: WidgetConfig;
  position: number;
  createdAt: string;
  updatedAt: string;
}

export interface AggregateLineStyle {
  totalColor?: string;
  averageColor?: string;
  peerAverageColor?: string;
  totalLineStyle?: string;
  averageLineStyle?: string;
  peerAverageLineStyle?: string;
  totalStrokeWidth?: number;
  averageStrokeWidth?: number;
  peerAverageStrokeWidth?: number;
}

export interface WidgetTheme {
  mode?: string;
  customColors?: string[];
  aggregateLines?: AggregateLineStyle;
}

export interface GlobalFilter {
  siteIds?: string[];
  startYear?: number;
  endYear?: number;
  startDate?: string;
  endDate?: string;
  statuses?: Array<'COMPLETED' | 'APPROVED' | 'REJECTED'>;
}

/** One point of a series: a period (`2026`, `2026-Q1`, `2026-03`) and its value. */
export interface SeriesPoint {
  period: string;
  /** Human label of the period: `2026`, `Q1 2026`, `Mar 2026`. */
  label: string;
  /** In the display unit; null when it cannot be computed (see the series' issues). */
  value: number | null;
  /** The value with its unit, e.g. `0.3 tCO2e`; null with the value. */
  formatted: string | null;
}

export interface TargetLine {
  targetId: string;
  name: string | null;
  /** PERCENTAGE targets are turned into absolute values against their baseline when possible. */
  type: 'ABSOLUTE' | 'PERCENTAGE';
  points: SeriesPoint[];
}

export interface Series {
  indicatorId: string;
  /** The indicator's label (or name). */
  name: string;
  /** With `sites: BREAKDOWN` or `CHILDREN`: the site this series is about. */
  siteId?: string;
  siteName?: string;
  /** Display unit symbol, or null. */
  unit: string | null;
  /** Over the whole filter (VALUE widgets show this). */
  total: SeriesPoint;
  /** One per period for LINE, BAR and TABLE; empty for VALUE. */
  points: SeriesPoint[];
  targets: TargetLine[];
  issues: Array<{ type: string; message: string }>;
}

/** Something the widget cannot show as asked (e.g. a target that cannot be drawn), and why. */
export interface WidgetIssue {
  type: string;
  message: string;
  indicatorId?: string;
  targetId?: string;
  siteId?: string;
}

export interface WidgetData {
  widgetId: string;
  series: Series[];
  issues: WidgetIssue[];
}

/** The dashboard fields safe to show to anyone who may open the dashboard's public link. */
export interface PublicDashboard {
  id: string;
  name: string;
  description: string | null;
  isPublic: boolean;
  publicCanFilterSites: boolean;
  hasPassword: boolean;
  requiresEmail: boolean;
  globalFilter: GlobalFilter;
  widgetTheme: WidgetTheme;
  tags: string[];
  updatedAt: string;
}

/** `GET /public/dashboards/{id}` (and what the page draws). */
export interface DashboardView {
  dashboard: PublicDashboard;
  widgets: Widget[];
  /** Same order as `widgets`. */
  data: WidgetData[];
  /** The sites a viewer may pick (only when `publicCanFilterSites`): id and name. */
  sites: Array<{ id: string; name: string }>;
  /** When this answer was computed (answers are cached for a few seconds). */
  computedAt: string;
}

/** The 401 of a gated public dashboard. */
export interface DashboardGate {
  code: 'UNAUTHORIZED';
  message: string;
  requiresPassword: boolean;
  requiresEmail: boolean;
}
