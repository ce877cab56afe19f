import type { Tx } from '../../db/client.ts';
import type {
  GlobalFilter,
  Series,
  SeriesPoint,
  TargetLine,
  Widget,
  WidgetData,
} from '../../domain/dashboards.ts';
import { indicatorSeries, type SeriesGrouping, type SeriesResult } from '../indicators/indicators.series.ts';
import { type CurrentValue, formatNumber } from '../indicators/indicators.values.ts';
import { targetsRepository } from '../targets/targets.repository.ts';
import type { TargetEntry } from '../targets/targets.schemas.ts';
import { dashboardsRepository as repo } from './dashboards.repository.ts';
import { SiteTree, sitesFor, type Viewer } from './dashboards.sites.ts';

const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026` -> `2026`, `2026-Q1` -> `Q1 2026`, `2026-03` -> `Mar 2026`. */
export function periodLabel(period: string): string {
  const quarter = /^(\d{4})-Q([1-4])$/.exec(period);
  if (quarter) return `Q${quarter[2]} ${quarter[1]}`;
  const month = /^(\d{4})-(\d{2})$/.exec(period);
  if (month) return `${MONTH_NAMES[Number(month[2]) - 1]} ${month[1]}`;
  return period;
}

export interface Period {
  fromYear: number;
  toYear: number;
  startDate?: string;
  endDate?: string;
}

/** The years and days a filter covers: its years, else its days' years, else the current year. */
export function periodOf(filter: GlobalFilter, now: Date): Period {
  const current = now.getUTCFullYear();
  const yearOf = (day: string | undefined) => (day ? Number(day.slice(0, 4)) : undefined);
  const toYear = filter.endYear ?? yearOf(filter.endDate) ?? Math.max(filter.startYear ?? current, current);
  const fromYear = filter.startYear ?? yearOf(filter.startDate) ?? Math.min(toYear, current);
  return {
    fromYear,
    toYear,
    ...(filter.startDate ? { startDate: filter.startDate } : {}),
    ...(filter.endDate ? { endDate: filter.endDate } : {}),
  };
}

function format(value: number, unit: string | null, decimals: number | undefined): string {
  const text =
    decimals === undefined
      ? null
      : new Intl.NumberFormat('en-US', {
          minimumFractionDigits: decimals,
          maximumFractionDigits: decimals,
        }).format(value);
  return text === null ? '' : unit ? `${text} ${unit}` : text;
}

function point(period: string, label: string, v: CurrentValue, decimals: number | undefined): SeriesPoint {
  const value = v.displayValue;
  return {
    period,
    label,
    value,
    formatted:
      value === null ? null : decimals === undefined ? v.formatted : format(value, v.displayUnit, decimals),
  };
}

const groupingOf = (widget: Widget): SeriesGrouping =>
  widget.type === 'VALUE' ? 'TOTAL' : (widget.config.period ?? 'YEARLY');

/** The grouping a target entry belongs to, and its period string. */
function entryPeriod(e: TargetEntry): { grouping: SeriesGrouping; period: string } {
  if (e.month !== null)
    return { grouping: 'MONTHLY', period: `${e.year}-${String(e.month).padStart(2, '0')}` };
  if (e.quarter !== null) return { grouping: 'QUARTERLY', period: `${e.year}-Q${e.quarter}` };
  return { grouping: 'YEARLY', period: String(e.year) };
}

interface Context {
  tx: Tx;
  viewer: Viewer;
  tree: SiteTree;
  period: Period;
  statuses: GlobalFilter['statuses'];
  /** Sites of TOTAL series (undefined: all the viewer sees); BREAKDOWN: one series per site. */
  siteIds: string[] | undefined;
  breakdownSites: string[];
  now: Date;
  names: Map<string, string>;
}

/**
 * The targets of an indicator as lines beside one series: the entries of the widget's period
 * kind within the years (VALUE widgets: yearly entries), of the series' site (or without one).
 * PERCENTAGE entries become absolute against the baseline when the baseline has a value.
 */
async function targetLines(
  ctx: Context,
  indicatorId: string,
  grouping: SeriesGrouping,
  siteId: string | undefined,
  sites: string[] | undefined,
  decimals: number | undefined,
  seriesUnit: string | null,
): Promise<TargetLine[]> {
  const wanted = grouping === 'TOTAL' ? 'YEARLY' : grouping;
  const targets = await targetsRepository.list(ctx.tx, ctx.viewer.organizationId, indicatorId);
  const lines: TargetLine[] = [];
  for (const target of targets) {
    const entries = (target.target_entries as TargetEntry[]).filter(
      (e) =>
        entryPeriod(e).grouping === wanted &&
        e.year >= ctx.period.fromYear &&
        e.year <= ctx.period.toYear &&
        (e.siteId ?? undefined) === siteId,
    );
    if (entries.length === 0) continue;
    let baseline: CurrentValue | null = null;
    if (entries.some((e) => e.type === 'PERCENTAGE') && target.baseline_year !== null) {
      baseline = await baselineValue(ctx, indicatorId, target, sites);
    }
    let allAbsolute = true;
    const points = entries.map((e) => {
      const { period } = entryPeriod(e);
      let value = e.targetValue;
      let unit = seriesUnit;
      if (e.type === 'PERCENTAGE') {
        if (baseline?.displayValue !== null && baseline?.displayValue !== undefined) {
          value = baseline.displayValue * (1 + e.targetValue / 100);
        } else {
          allAbsolute = false;
          unit = '%';
        }
      }
      const formatted = decimals === undefined ? formatNumber(value, unit) : format(value, unit, decimals);
      return { period, label: periodLabel(period), value, formatted };
    });
    lines.push({
      targetId: target.id,
      name: target.title,
      type: allAbsolute ? 'ABSOLUTE' : 'PERCENTAGE',
      points: points.sort((a, b) => (a.period < b.period ? -1 : 1)),
    });
  }
  return lines;
}

async function baselineValue(
  ctx: Context,
  indicatorId: string,
  target: { baseline_year: number | null; baseline_month: number | null; baseline_quarter: number | null },
  sites: string[] | undefined,
): Promise<CurrentValue | null> {
  const year = target.baseline_year!;
  const firstMonth =
    target.baseline_month ?? (target.baseline_quarter ? (target.baseline_quarter - 1) * 3 + 1 : null);
  const lastMonth = target.baseline_month ?? (target.baseline_quarter ? target.baseline_quarter * 3 : null);
  const day = (m: number, d: number) => `${year}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  const [result] = await indicatorSeries(
    ctx.tx,
    ctx.viewer,
    {
      indicatorIds: [indicatorId],
      ...(sites ? { siteIds: sites } : {}),
      fromYear: year,
      toYear: year,
      ...(firstMonth && lastMonth ? { startDate: day(firstMonth, 1), endDate: day(lastMonth, 1) } : {}),
      ...(ctx.statuses ? { statuses: ctx.statuses } : {}),
      grouping: 'TOTAL',
    },
    ctx.now,
  );
  return result?.total ?? null;
}

async function widgetData(ctx: Context, widget: Widget): Promise<WidgetData> {
  const grouping = groupingOf(widget);
  const breakdown = widget.config.sites === 'BREAKDOWN';
  const decimals = widget.config.decimals;
  if (breakdown && ctx.breakdownSites.length === 0) return { widgetId: widget.id, series: [] };
  const results: SeriesResult[] = await indicatorSeries(
    ctx.tx,
    ctx.viewer,
    {
      indicatorIds: widget.indicatorIds,
      ...(breakdown
        ? { siteIds: ctx.breakdownSites, bySite: true }
        : ctx.siteIds
          ? { siteIds: ctx.siteIds }
          : {}),
      fromYear: ctx.period.fromYear,
      toYear: ctx.period.toYear,
      ...(ctx.period.startDate ? { startDate: ctx.period.startDate } : {}),
      ...(ctx.period.endDate ? { endDate: ctx.period.endDate } : {}),
      ...(ctx.statuses ? { statuses: ctx.statuses } : {}),
      grouping,
    },
    ctx.now,
  );
  const totalLabel =
    ctx.period.fromYear === ctx.period.toYear
      ? String(ctx.period.fromYear)
      : `${ctx.period.fromYear}–${ctx.period.toYear}`;
  const series: Series[] = [];
  for (const r of results) {
    const site = r.siteId ? ctx.tree.byId.get(r.siteId) : undefined;
    series.push({
      indicatorId: r.indicatorId,
      name: ctx.names.get(r.indicatorId) ?? r.indicatorId,
      ...(site ? { siteId: site.id, siteName: site.name } : {}),
      unit: r.total.displayUnit,
      total: point('total', totalLabel, r.total, decimals),
      points:
        grouping === 'TOTAL'
          ? []
          : r.points.map((p) => point(p.period, periodLabel(p.period), p.value, decimals)),
      targets: widget.config.showTarget
        ? await targetLines(
            ctx,
            r.indicatorId,
            grouping,
            r.siteId,
            r.siteId ? [r.siteId] : ctx.siteIds,
            decimals,
            r.total.displayUnit,
          )
        : [],
      issues: r.total.issues.map((i) => ({ type: i.type, message: i.message })),
    });
  }
  return { widgetId: widget.id, series };
}

/**
 * Every widget's series over the dashboard's filter, for a viewer. `siteIds` (already checked)
 * replaces the filter's sites: what a public viewer picked.
 */
export async function computeWidgets(
  tx: Tx,
  viewer: Viewer,
  filter: GlobalFilter,
  widgets: Widget[],
  now: Date,
  options: { tree?: SiteTree; siteIds?: string[] } = {},
): Promise<WidgetData[]> {
  const tree = options.tree ?? (await SiteTree.load(tx, viewer.organizationId));
  const given = options.siteIds ?? filter.siteIds;
  // A filter site deleted since is left out; a filter whose sites are all gone shows nothing
  // (never the whole organization).
  const named = given?.length ? given.filter((id) => tree.byId.has(id)) : undefined;
  const siteIds = await sitesFor(tx, viewer, tree, named);
  const breakdownSites = siteIds ?? tree.tops(new Set(tree.byId.keys()));
  const indicators = await repo.indicators(tx, viewer.organizationId, [
    ...new Set(widgets.flatMap((w) => w.indicatorIds)),
  ]);
  const ctx: Context = {
    tx,
    viewer,
    tree,
    period: periodOf(filter, now),
    statuses: filter.statuses,
    siteIds,
    breakdownSites,
    now,
    names: new Map(indicators.map((i) => [i.id, i.label ?? i.name])),
  };
  const data: WidgetData[] = [];
  for (const widget of widgets) data.push(await widgetData(ctx, widget));
  return data;
}
