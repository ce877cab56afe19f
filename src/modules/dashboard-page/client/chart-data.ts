import { type PageDataset, dashOf, type SeriesStyle, styleOf, TARGET_DASH } from './chart-styles.ts';
import { pointText, seriesName } from './format.ts';
import { say } from './language.ts';
import { filledPeriods, pointsAt, valuesAt } from './periods.ts';
import type { AggregateLines, Point, ViewSeries, ViewWidgetConfig } from './types.ts';

// The datasets of a LINE or BAR widget: its series over the periods (with their targets and the
// aggregate lines), or, for a bar breakdown by site, the sites on the category axis.

type LineKey = 'total' | 'average';

/**
 * Aggregate lines (BREAKDOWN widgets): per indicator, the sum and the mean over its sites, each
 * drawn when the theme's aggregateLines styles it (a color, a line style or a width).
 */
function aggregateDatasets(series: ViewSeries[], periods: string[], lines: AggregateLines): PageDataset[] {
  const out: PageDataset[] = [];
  const wants = (key: LineKey) =>
    lines[`${key}Color`] !== undefined ||
    lines[`${key}LineStyle`] !== undefined ||
    lines[`${key}StrokeWidth`] !== undefined;
  const byIndicator = new Map<string, ViewSeries[]>();
  for (const s of series) {
    if (!s.siteId) continue;
    const group = byIndicator.get(s.indicatorId) ?? [];
    group.push(s);
    byIndicator.set(s.indicatorId, group);
  }
  for (const group of byIndicator.values()) {
    const first = group[0];
    if (!first || group.length < 2) continue;
    const columns = group.map((s) => valuesAt(s.points, periods));
    const present = periods.map((_, i) =>
      columns.map((c) => c[i] ?? null).filter((v): v is number => v !== null),
    );
    const sums = present.map((vs) => (vs.length ? vs.reduce((a, b) => a + b, 0) : null));
    const averages = present.map((vs, i) => (vs.length ? (sums[i] ?? 0) / vs.length : null));
    for (const [key, label, data] of [
      ['total', say('total'), sums],
      ['average', say('average'), averages],
    ] as const) {
      if (!wants(key)) continue;
      const color = lines[`${key}Color`] || (key === 'total' ? '#1c2530' : '#6b7785');
      out.push({
        type: 'line',
        label: `${first.name} · ${label}`,
        data: [...data],
        unit: first.unit,
        borderColor: color,
        backgroundColor: color,
        borderDash: dashOf(lines[`${key}LineStyle`]),
        borderWidth: Number(lines[`${key}StrokeWidth`]) || 2,
        pointStyle: 'line',
        pointRadius: 0,
        pointHoverRadius: 4,
        spanGaps: true,
        order: 0,
      });
    }
  }
  return out;
}

/** The target datasets of a series over the periods: dashed, every point marked, labelled. */
function targetDatasets(s: ViewSeries, style: SeriesStyle, periods: string[]): PageDataset[] {
  return (s.targets ?? []).map((t) => {
    const data = valuesAt(t.points, periods);
    const formatted = pointsAt(t.points, periods);
    const lastIndex = data.reduce<number>((last, v, i) => (v === null ? last : i), -1);
    const last = lastIndex >= 0 ? formatted[lastIndex] : null;
    const name = t.name || say('targetDefault');
    const lastText = last ? pointText(last, s.unit) : '';
    return {
      type: 'line',
      label: say('target', { name }),
      target: true,
      directLabel: lastText && lastText !== '—' ? `${name}: ${lastText}` : name,
      data,
      formatted,
      unit: s.unit,
      borderColor: style.color,
      backgroundColor: style.color,
      borderDash: TARGET_DASH,
      borderWidth: 2,
      // Every point of the path is marked (a lone target year shows as a diamond).
      pointStyle: 'rectRot',
      pointRadius: 4.5,
      pointHoverRadius: 6,
      pointBackgroundColor: style.color,
      spanGaps: true,
      fill: false,
      order: 0,
    };
  });
}

/** LINE and BAR over the periods: one dataset per series (and per target), periods on the axis. */
export function periodDatasets(
  series: ViewSeries[],
  config: ViewWidgetConfig,
  colors: string[],
  lines: AggregateLines,
  isBar: boolean,
  periods: string[],
): PageDataset[] {
  const datasets: PageDataset[] = [];
  series.forEach((s, i) => {
    const style = styleOf(colors, i, isBar);
    datasets.push({
      type: isBar ? 'bar' : 'line',
      label: seriesName(s, series),
      data: valuesAt(s.points, periods),
      formatted: pointsAt(s.points, periods),
      unit: s.unit,
      borderColor: style.color,
      backgroundColor: style.fill,
      hatched: style.fill !== style.color,
      borderDash: style.dash,
      borderWidth: isBar ? 0 : 2.5,
      borderRadius: isBar ? 4 : 0,
      pointStyle: style.pointStyle,
      pointRadius: isBar ? 0 : 3,
      pointHoverRadius: 5,
      tension: 0.15,
      fill: false,
      order: 1,
    });
    if (config.showTarget) datasets.push(...targetDatasets(s, style, periods));
  });
  datasets.push(...aggregateDatasets(series, periods, lines));
  return datasets;
}

/** The targets of a group of series at one period, one mark per site (the first target's). */
function targetMarks(group: ViewSeries[], at: (s: ViewSeries) => number, sites: number, period: string) {
  const marks: Array<number | null> = new Array(sites).fill(null);
  const markText: Array<Point | null> = new Array(sites).fill(null);
  let name: string | null = null;
  for (const s of group) {
    for (const t of s.targets ?? []) {
      const point = pointsAt(t.points, [period])[0];
      if (!point || point.value === null) continue;
      const index = at(s);
      if (marks[index] !== null) continue;
      marks[index] = point.value;
      markText[index] = point;
      name = name ?? t.name;
    }
  }
  return { marks, markText, name };
}

/**
 * A BAR breakdown by site (one period with data, or more sites than colors): the sites on the
 * category axis, one dataset per indicator and period (up to four periods with data; past that
 * the total over the filter), targets as marks on each site's bar.
 */
export function siteDatasets(
  series: ViewSeries[],
  config: ViewWidgetConfig,
  colors: string[],
  periods: string[],
  labels: string[],
): { labels: string[]; datasets: PageDataset[] } {
  const sites: string[] = [];
  const seen = new Map<string, number>();
  for (const s of series) {
    const key = s.siteId || s.name;
    if (!seen.has(key)) {
      seen.set(key, sites.length);
      sites.push(s.siteName || s.name);
    }
  }
  const at = (s: ViewSeries) => seen.get(s.siteId || s.name) ?? 0;
  const indicators = [...new Set(series.map((s) => s.indicatorId))];
  const filled = filledPeriods(series, periods);
  const useTotal = filled.length > 4 || filled.length === 0;
  const totalLabel = series[0]?.total?.label;
  const columns: Array<{ period: string | null; label: string }> = useTotal
    ? [{ period: null, label: totalLabel ? say('totalOf', { label: totalLabel }) : say('total') }]
    : filled.map((p) => ({ period: p, label: labels[periods.indexOf(p)] ?? p }));
  const datasets: PageDataset[] = [];
  let n = 0;
  for (const indicatorId of indicators) {
    const group = series.filter((s) => s.indicatorId === indicatorId);
    const first = group[0];
    if (!first) continue;
    for (const column of columns) {
      const style = styleOf(colors, n++, true);
      const data: Array<number | null> = new Array(sites.length).fill(null);
      const formatted: Array<Point | null> = new Array(sites.length).fill(null);
      for (const s of group) {
        const point = column.period === null ? s.total : (pointsAt(s.points, [column.period])[0] ?? null);
        data[at(s)] = point?.value ?? null;
        formatted[at(s)] = point;
      }
      const label =
        indicators.length === 1
          ? columns.length === 1
            ? first.name
            : column.label
          : `${first.name} · ${column.label}`;
      datasets.push({
        type: 'bar',
        label,
        data,
        formatted,
        unit: first.unit,
        borderColor: style.color,
        backgroundColor: style.fill,
        hatched: style.fill !== style.color,
        borderWidth: 0,
        borderRadius: 3,
        order: 1,
      });
      if (!config.showTarget || column.period === null) continue;
      const { marks, markText, name } = targetMarks(group, at, sites.length, column.period);
      if (!marks.some((v) => v !== null)) continue;
      const targetName = name || say('targetDefault');
      datasets.push({
        type: 'line',
        label:
          columns.length > 1
            ? say('targetAt', { name: targetName, label: column.label })
            : say('target', { name: targetName }),
        target: true,
        data: marks,
        formatted: markText,
        unit: first.unit,
        borderColor: '#1c2530',
        backgroundColor: '#1c2530',
        borderDash: TARGET_DASH,
        showLine: false,
        pointStyle: 'line',
        pointRadius: 9,
        pointHoverRadius: 10,
        pointBorderWidth: 3,
        order: 0,
      });
    }
  }
  return { labels: sites, datasets };
}
