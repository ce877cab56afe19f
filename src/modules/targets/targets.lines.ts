import type { Tx } from '../../db/client.ts';
import type { Viewer } from '../../domain/caller.ts';
import type {
  GlobalFilter,
  PeriodGrouping,
  SeriesPoint,
  TargetLine,
  WidgetIssue,
} from '../../domain/dashboards.ts';
import { type Node, parseExpression } from '../../expressions/parse.ts';
import {
  type CurrentValue,
  type ExpressionPart,
  findElement,
  indicatorSeries,
  prepare,
  type SeriesGrouping,
} from '../indicators/index.ts';
import {
  containing,
  entryPeriodOf,
  formatValue,
  groupingOf,
  linearPath,
  PER_YEAR,
  RANK,
  seriesPeriodLabel,
} from './targets.periods.ts';
import type { TargetEntry } from './targets.schemas.ts';
import { readableTargets } from './targets.service.ts';

/**
 * Targets beside a widget's series (`config.showTarget`).
 *
 * - YEARLY series (and VALUE widgets): a target's yearly entries are the milestones of a linear
 *   path that starts at the baseline year's ACTUAL value (the indicator over that year, in the
 *   series' sites) and runs through each target year: one point per year of the filter on it.
 * - MONTHLY/QUARTERLY series: the target's entries of that period kind, and for the years (or
 *   quarters) it has none, its yearly path value (its quarterly value) split evenly over the
 *   periods, when the indicator is a sum over time; otherwise an issue says why not.
 * - A target that yields no point on the widget is named in the widget's issues with the reason.
 */

export interface TargetContext {
  tx: Tx;
  viewer: Viewer;
  fromYear: number;
  toYear: number;
  statuses: GlobalFilter['statuses'];
  now: Date;
  /** Shared by the widgets of one computation: each is asked once per indicator (or baseline). */
  memo: Map<string, Promise<unknown>>;
}

/** The memoized answer of `make` for `key` within one computation. */
function once<T>(ctx: TargetContext, key: string, make: () => Promise<T>): Promise<T> {
  let hit = ctx.memo.get(key) as Promise<T> | undefined;
  if (!hit) {
    hit = make();
    ctx.memo.set(key, hit);
  }
  return hit;
}

export interface TargetSeries {
  indicatorId: string;
  indicatorName: string;
  grouping: SeriesGrouping;
  /** The series' site (breakdowns) or undefined (TOTAL series: org-wide entries). */
  siteId: string | undefined;
  siteName: string | undefined;
  /** The sites the series covers (undefined: every site the viewer sees). */
  sites: string[] | undefined;
  /** The series' periods (`2026`, `2026-Q1`, `2026-03`), in order; TOTAL: none. */
  periods: string[];
  decimals: number | undefined;
  unit: string | null;
}

/**
 * Whether an indicator is a sum over time: its value over a year is the sum of its values over
 * the year's months. It is when its expression is linear in data whose aggregation is SUM
 * (activities always are): each term holds one such operand, times or divided by constants
 * (numbers, coefficients). A ratio of data (an intensity), a product of data, a constant term,
 * or a LAST/AVERAGE element (a stock such as headcount) make it not.
 */
export async function isSumOverTime(
  tx: Tx,
  organizationId: string,
  indicatorId: string,
  year: number,
): Promise<boolean> {
  const prepared = await prepare(tx, organizationId, [indicatorId], year);
  const NOT = -1;
  const degreeOf = (id: string, path: string[]): number => {
    const row = prepared.byId.get(id);
    if (!row || path.includes(id)) return NOT;
    const parts = row.expression_parts as ExpressionPart[];
    let tree: Node;
    try {
      tree = parseExpression(parts);
    } catch {
      return NOT;
    }
    const walk = (node: Node): number => {
      switch (node.kind) {
        case 'number':
          return 0;
        case 'negate':
          return walk(node.operand);
        case 'operand': {
          if (node.type === 'datasetItem') return 0;
          if (node.type === 'indicator') return degreeOf(node.value, [...path, id]);
          const element = findElement(prepared.refs, parts[node.index]!);
          if (!element) return NOT;
          return element.type === 'ACTIVITY' || element.aggregation === 'SUM' ? 1 : NOT;
        }
        case 'binary': {
          const left = walk(node.left);
          const right = walk(node.right);
          if (left === NOT || right === NOT) return NOT;
          if (node.op === '+' || node.op === '-') return left === right ? left : NOT;
          if (node.op === '*') return left + right > 1 ? NOT : left + right;
          return right === 0 ? left : NOT;
        }
        // A function or comparison of quantities does not add up over time (max of sums ≠ sum of maxes).
        case 'call':
          return node.args.map(walk).every((d) => d === 0) ? 0 : NOT;
        case 'compare':
          return walk(node.left) === 0 && walk(node.right) === 0 ? 0 : NOT;
      }
    };
    return walk(tree);
  };
  return degreeOf(indicatorId, []) === 1;
}

/** The indicator over a whole year, or over the baseline's month or quarter, in the given sites. */
async function valueOver(
  ctx: TargetContext,
  indicatorId: string,
  sites: string[] | undefined,
  year: number,
  month: number | null,
  quarter: number | null,
): Promise<CurrentValue | null> {
  const key = `value|${indicatorId}|${sites?.join(',') ?? '*'}|${year}|${month}|${quarter}`;
  return once(ctx, key, () => computeValueOver(ctx, indicatorId, sites, year, month, quarter));
}

async function computeValueOver(
  ctx: TargetContext,
  indicatorId: string,
  sites: string[] | undefined,
  year: number,
  month: number | null,
  quarter: number | null,
): Promise<CurrentValue | null> {
  const firstMonth = month ?? (quarter ? (quarter - 1) * 3 + 1 : null);
  const lastMonth = month ?? (quarter ? quarter * 3 : null);
  const day = (m: number) => `${year}-${String(m).padStart(2, '0')}-01`;
  const [result] = await indicatorSeries(
    ctx.tx,
    ctx.viewer,
    {
      indicatorIds: [indicatorId],
      ...(sites ? { siteIds: sites } : {}),
      fromYear: year,
      toYear: year,
      ...(firstMonth && lastMonth ? { startDate: day(firstMonth), endDate: day(lastMonth) } : {}),
      ...(ctx.statuses ? { statuses: ctx.statuses } : {}),
      grouping: 'TOTAL',
    },
    ctx.now,
  );
  return result?.total ?? null;
}

/** The target lines of one series, and the issues of the targets that cannot be drawn on it. */
export async function targetLines(
  ctx: TargetContext,
  series: TargetSeries,
): Promise<{ lines: TargetLine[]; issues: WidgetIssue[] }> {
  const grouping: PeriodGrouping = series.grouping === 'TOTAL' ? 'YEARLY' : series.grouping;
  // Only the entries the viewer may read (decision 167): a member limited to some sites gets no
  // line of another site's, nor of the whole organization's, target.
  const targets = await once(ctx, `targets|${series.indicatorId}`, () =>
    readableTargets(ctx.tx, ctx.viewer, series.indicatorId),
  );
  const lines: TargetLine[] = [];
  const issues: WidgetIssue[] = [];
  const years: number[] = [];
  for (let y = ctx.fromYear; y <= ctx.toYear; y++) years.push(y);
  const periods = grouping === 'YEARLY' ? years.map(String) : series.periods;
  const inPeriods = new Set(periods);
  let additive: boolean | undefined;
  const where = series.siteName ? ` for ${series.siteName}` : '';
  const about = (targetId: string) => ({
    indicatorId: series.indicatorId,
    targetId,
    ...(series.siteId ? { siteId: series.siteId } : {}),
  });

  for (const target of targets) {
    const entries = (target.target_entries as TargetEntry[]).filter(
      (e) => (e.siteId ?? undefined) === series.siteId,
    );
    if (entries.length === 0) continue;
    const title = `Target “${target.title}”`;
    const baselineYear = target.baseline_year;

    // PERCENTAGE entries: a change relative to the baseline (its year, month or quarter).
    let percentBase: number | null | undefined;
    if (entries.some((e) => e.type === 'PERCENTAGE') && baselineYear !== null) {
      const base = await valueOver(
        ctx,
        series.indicatorId,
        series.sites,
        baselineYear,
        target.baseline_month,
        target.baseline_quarter,
      );
      percentBase = base?.displayValue ?? null;
    }
    let unresolved = false;
    const absolute = (e: TargetEntry): number => {
      if (e.type !== 'PERCENTAGE') return e.targetValue;
      if (percentBase === null || percentBase === undefined) {
        unresolved = true;
        return e.targetValue;
      }
      return percentBase * (1 + e.targetValue / 100);
    };
    const resolved = entries.map((e) => ({
      entry: e,
      grouping: groupingOf(e),
      period: entryPeriodOf(e),
      value: absolute(e),
    }));

    const explained = issues.length;
    // The yearly path: the baseline year's actual value, then each yearly entry after it.
    // (Two entries of one year: both are shown; the path goes through the first.)
    const yearly = resolved
      .filter((r) => r.grouping === 'YEARLY')
      .sort((a, b) => a.entry.year - b.entry.year);
    const anchors = yearly
      .filter((r, i) => i === 0 || yearly[i - 1]!.entry.year !== r.entry.year)
      .map((r) => ({ year: r.entry.year, value: r.value }));
    if (!unresolved && baselineYear !== null && yearly.some((r) => r.entry.year > baselineYear)) {
      const actual =
        target.baseline_month === null && target.baseline_quarter === null && percentBase !== undefined
          ? percentBase
          : ((await valueOver(ctx, series.indicatorId, series.sites, baselineYear, null, null))
              ?.displayValue ?? null);
      if (actual === null) {
        issues.push({
          type: 'targetBaselineMissing',
          message: `${title}${where}: ${series.indicatorName} has no value in its baseline year ${baselineYear}, so the path from the baseline is not drawn (only the target years)`,
          ...about(target.id),
        });
      } else {
        const before = anchors.filter((a) => a.year < baselineYear);
        const after = anchors.filter((a) => a.year > baselineYear);
        anchors.splice(0, anchors.length, ...before, { year: baselineYear, value: actual }, ...after);
      }
    }
    // Without a resolved baseline, PERCENTAGE values are not in the series' unit: shown as they
    // are (in %), never joined into a path with values.
    const percentYears = new Set(
      yearly.filter((r) => r.entry.type === 'PERCENTAGE').map((r) => String(r.entry.year)),
    );
    if (unresolved) {
      issues.push({
        type: 'targetBaselineMissing',
        message: `${title}${where}: its percentage entries are relative to ${baselineYear === null ? 'a baseline, and it has no baseline year' : `${series.indicatorName} in ${baselineYear}, which has no value here`}, so they cannot be turned into values${grouping === 'YEARLY' ? ' (they are shown in %)' : ''}`,
        ...about(target.id),
      });
    }
    const path = unresolved
      ? new Map(anchors.filter((a) => years.includes(a.year)).map((a) => [a.year, a.value]))
      : linearPath(anchors, years);

    const points: SeriesPoint[] = [];
    // Interpolated and split values are rounded to 12 significant digits: 1.2 / 12 is 0.1,
    // not 0.09999999999999999 (far below any target's precision).
    const add = (period: string, value: number, percent = false) =>
      points.push({
        period,
        label: seriesPeriodLabel(period),
        value: Number(value.toPrecision(12)),
        formatted: formatValue(value, percent ? '%' : series.unit, series.decimals),
      });
    if (grouping === 'YEARLY') {
      for (const r of yearly)
        if (years.includes(r.entry.year)) add(r.period, r.value, unresolved && r.entry.type === 'PERCENTAGE');
      for (const [year, value] of path)
        if (!yearly.some((r) => r.entry.year === year)) add(String(year), value);
    } else {
      // Entries of the widget's own period kind, then coarser ones split over the periods left.
      const own = resolved.filter((r) => r.grouping === grouping && inPeriods.has(r.period));
      for (const r of own) add(r.period, r.value, unresolved && r.entry.type === 'PERCENTAGE');
      const covered = new Set(own.map((r) => r.period));
      const coarser: Array<{ grouping: PeriodGrouping; period: string; value: number; percent: boolean }> = [
        ...(grouping === 'MONTHLY'
          ? resolved
              .filter((r) => r.grouping === 'QUARTERLY')
              .map((r) => ({
                grouping: r.grouping,
                period: r.period,
                value: r.value,
                percent: unresolved && r.entry.type === 'PERCENTAGE',
              }))
          : []),
        ...[...path].map(([year, value]) => ({
          grouping: 'YEARLY' as PeriodGrouping,
          period: String(year),
          value,
          percent: unresolved && percentYears.has(String(year)),
        })),
      ];
      let refused = false;
      for (const c of coarser) {
        const split = periods.filter((p) => containing(p, c.grouping) === c.period);
        const free = split.filter((p) => !covered.has(p));
        // A coarser entry is split only over a period it has no finer entry in.
        if (free.length === 0 || free.length < split.length) continue;
        additive ??= await once(ctx, `additive|${series.indicatorId}`, () =>
          isSumOverTime(ctx.tx, ctx.viewer.organizationId, series.indicatorId, ctx.toYear),
        );
        if (!additive || c.percent) {
          refused = true;
          continue;
        }
        const share = PER_YEAR[grouping] / PER_YEAR[c.grouping];
        for (const p of free) {
          add(p, c.value / share);
          covered.add(p);
        }
      }
      // (Refused for an unresolved percentage only: the baseline issue above says why.)
      if (refused && additive === false) {
        issues.push({
          type: 'targetNotAdditive',
          message: `${title}${where} is set per ${grouping === 'MONTHLY' ? 'year or quarter' : 'year'}; ${series.indicatorName} is not a sum over time (a ratio, or a stock such as headcount), so the target cannot be split into ${grouping === 'MONTHLY' ? 'months' : 'quarters'}. Show it on a yearly widget.`,
          ...about(target.id),
        });
        if (points.length === 0) continue;
      }
    }
    // No point, and the missing baseline already said why: not said twice.
    if (points.length === 0 && issues.length > explained) continue;
    if (points.length === 0) {
      const kinds = [...new Set(resolved.map((r) => r.grouping.toLowerCase()))].join(' and ');
      const entryYears = [...new Set(resolved.map((r) => r.entry.year))].sort().join(', ');
      issues.push({
        type: 'targetNotShown',
        message: `${title}${where} is not drawn: its ${kinds} entries (${entryYears}) fall on none of this ${grouping.toLowerCase()} widget’s periods (${ctx.fromYear === ctx.toYear ? ctx.fromYear : `${ctx.fromYear}–${ctx.toYear}`})${resolved.every((r) => RANK[r.grouping] > RANK[grouping]) ? '; entries finer than the widget’s periods are not added up' : ''}`,
        ...about(target.id),
      });
      continue;
    }
    lines.push({
      targetId: target.id,
      name: target.title,
      type: unresolved ? 'PERCENTAGE' : 'ABSOLUTE',
      points: points.sort((a, b) => (a.period < b.period ? -1 : a.period > b.period ? 1 : 0)),
    });
  }
  return { lines, issues };
}
