import type { Tx } from '../../db/client.ts';
import type { Viewer } from '../../domain/caller.ts';
import type {
  GlobalFilter,
  Series,
  SeriesPoint,
  Widget,
  WidgetData,
  WidgetIssue,
} from '../../domain/dashboards.ts';
import {
  type CurrentValue,
  indicatorSeries,
  type SeriesGrouping,
  type SeriesResult,
} from '../indicators/index.ts';
import { seriesPeriodLabel, type TargetContext, targets } from '../targets/index.ts';
import { dashboardsRepository as repo } from './dashboards.repository.ts';
import { DashboardSiteTree, sitesFor } from './dashboards.sites.ts';

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

interface Context {
  tx: Tx;
  viewer: Viewer;
  tree: DashboardSiteTree;
  period: Period;
  statuses: GlobalFilter['statuses'];
  /** Sites of TOTAL series (undefined: all the viewer sees); BREAKDOWN: one series per site. */
  siteIds: string[] | undefined;
  breakdownSites: string[];
  /** What target lines need; its memo is shared by the widgets. */
  targets: TargetContext;
  /** CHILDREN: one series per child of the filter's sites (computed once, when first asked). */
  childSites: () => Promise<string[]>;
  now: Date;
  names: Map<string, string>;
}

async function widgetData(ctx: Context, widget: Widget): Promise<WidgetData> {
  const grouping = groupingOf(widget);
  const bySites =
    widget.config.sites === 'BREAKDOWN'
      ? ctx.breakdownSites
      : widget.config.sites === 'CHILDREN'
        ? await ctx.childSites()
        : undefined;
  const breakdown = bySites !== undefined;
  const decimals = widget.config.decimals;
  if (bySites?.length === 0) return { widgetId: widget.id, series: [], issues: [] };
  const results: SeriesResult[] = await indicatorSeries(
    ctx.tx,
    ctx.viewer,
    {
      indicatorIds: widget.indicatorIds,
      ...(breakdown ? { siteIds: bySites, bySite: true } : ctx.siteIds ? { siteIds: ctx.siteIds } : {}),
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
  const issues: WidgetIssue[] = [];
  for (const r of results) {
    const site = r.siteId ? ctx.tree.byId.get(r.siteId) : undefined;
    const name = ctx.names.get(r.indicatorId) ?? r.indicatorId;
    const drawn = widget.config.showTarget
      ? await targets.linesFor(ctx.targets, {
          indicatorId: r.indicatorId,
          indicatorName: name,
          grouping,
          siteId: r.siteId,
          siteName: site?.name,
          sites: r.siteId ? [r.siteId] : ctx.siteIds,
          periods: r.points.map((p) => p.period),
          decimals,
          unit: r.total.displayUnit,
        })
      : { lines: [], issues: [] };
    issues.push(...drawn.issues);
    series.push({
      indicatorId: r.indicatorId,
      name,
      ...(site ? { siteId: site.id, siteName: site.name } : {}),
      unit: r.total.displayUnit,
      total: point('total', totalLabel, r.total, decimals),
      points:
        grouping === 'TOTAL'
          ? []
          : r.points.map((p) => point(p.period, seriesPeriodLabel(p.period), p.value, decimals)),
      targets: drawn.lines,
      issues: r.total.issues.map((i) => ({ type: i.type, message: i.message })),
    });
  }
  return { widgetId: widget.id, series, issues };
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
  options: { tree?: DashboardSiteTree; siteIds?: string[] } = {},
): Promise<WidgetData[]> {
  const tree = options.tree ?? (await DashboardSiteTree.load(tx, viewer.organizationId));
  const given = options.siteIds ?? filter.siteIds;
  // A filter site deleted since is left out; a filter whose sites are all gone shows nothing
  // (never the whole organization).
  const named = given?.length ? given.filter((id) => tree.byId.has(id)) : undefined;
  const siteIds = await sitesFor(tx, viewer, tree, named);
  const breakdownSites = siteIds ?? tree.roots();
  let children: Promise<string[]> | undefined;
  const childSites = () => {
    children ??= sitesFor(tx, viewer, tree, tree.childrenOf(named ?? null)).then((ids) => ids ?? []);
    return children;
  };
  const indicators = await repo.indicators(tx, viewer.organizationId, [
    ...new Set(widgets.flatMap((w) => w.indicatorIds)),
  ]);
  const period = periodOf(filter, now);
  const ctx: Context = {
    tx,
    viewer,
    tree,
    period,
    targets: {
      tx,
      viewer,
      fromYear: period.fromYear,
      toYear: period.toYear,
      statuses: filter.statuses,
      now,
      memo: new Map(),
    },
    statuses: filter.statuses,
    siteIds,
    breakdownSites,
    childSites,
    now,
    names: new Map(indicators.map((i) => [i.id, i.label ?? i.name])),
  };
  const data: WidgetData[] = [];
  for (const widget of widgets) data.push(await widgetData(ctx, widget));
  return data;
}
