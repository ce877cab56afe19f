import type { Chart, ChartConfiguration, ChartDataset, Scale, TooltipItem } from 'chart.js';
import { periodDatasets, siteDatasets } from './chart-data.ts';
import { htmlLegend, targetLabels } from './chart-legend.ts';
import { type PageDataset, palette } from './chart-styles.ts';
import { pointText, shorten } from './format.ts';
import { say } from './language.ts';
import { body, el } from './page.ts';
import { filledPeriods, periodsOf } from './periods.ts';
import type { ViewSeries, Theme, ViewWidget } from './types.ts';

// LINE and BAR widgets, drawn by Chart.js (its own file, `window.Chart`): periods on the axis,
// or for a bar breakdown by site the sites (horizontal bars when there are many).

// More series than this on a BAR breakdown: the sites go on the (horizontal) category axis.
const MAX_SERIES = 8;

const charts: Chart[] = [];

/** Forgets the charts drawn (before the widgets are drawn again). */
export function destroyCharts(): void {
  for (let chart = charts.pop(); chart; chart = charts.pop()) chart.destroy();
}

/** Chart.js's defaults for the page: its language, the theme's colors, the page's font. */
export function chartDefaults(locale: string, theme?: Theme): void {
  const ChartJs = window.Chart;
  if (!ChartJs) return;
  ChartJs.defaults.locale = locale;
  if (!theme) return;
  const dark = theme.mode === 'dark';
  ChartJs.defaults.color = dark ? '#c9d4df' : '#4b5866';
  ChartJs.defaults.borderColor = dark ? '#263341' : '#e6ebf0';
  ChartJs.defaults.font.family = getComputedStyle(body).fontFamily;
}

const byIndex = (a: TooltipItem<'bar' | 'line'>, b: TooltipItem<'bar' | 'line'>) =>
  a.datasetIndex - b.datasetIndex;

export function drawChart(widget: ViewWidget, series: ViewSeries[], theme: Theme): HTMLElement {
  const config = widget.config;
  const wrap = el('div', 'chart');
  const box = el('div', 'chart-box');
  const canvas = el('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', widget.title);
  box.append(canvas);
  wrap.append(box);
  const ChartJs = window.Chart;
  if (!ChartJs) {
    box.replaceChildren(el('p', 'empty', say('noChart')));
    return wrap;
  }
  const colors = palette(theme);
  const lines = theme.aggregateLines ?? {};
  const { periods, labels } = periodsOf(series);
  const isBar = widget.type === 'BAR';
  const filled = filledPeriods(series, periods);
  const bySite = isBar && series.some((s) => s.siteId) && (filled.length <= 1 || series.length > MAX_SERIES);
  const spec = bySite
    ? siteDatasets(series, config, colors, periods, labels)
    : { labels, datasets: periodDatasets(series, config, colors, lines, isBar, periods) };
  // Many sites: horizontal bars, one row per site, the box as tall as they need.
  const horizontal = bySite && spec.labels.length > 6;
  if (horizontal) {
    const bars = spec.datasets.filter((d) => d.type === 'bar').length;
    box.classList.add('chart-box-rows');
    box.style.height = `${Math.max(240, spec.labels.length * Math.max(26, bars * 13 + 10) + 70)}px`;
  }
  wrap.dataset['layout'] = bySite ? (horizontal ? 'sites-horizontal' : 'sites') : 'periods';
  const units = [...new Set(series.map((s) => s.unit).filter(Boolean))];
  const narrow = () => window.innerWidth < 600;
  const valueAxis = {
    beginAtZero: true,
    title: { display: units.length === 1, text: units[0] ?? '' },
    ticks: { maxTicksLimit: 6 },
  };
  const categoryAxis = {
    grid: { display: false },
    ticks: {
      autoSkip: !bySite,
      callback(this: Scale, value: string | number) {
        const text = String(this.getLabelForValue(Number(value)));
        return bySite ? shorten(text, narrow() ? 14 : 26) : text;
      },
    },
  };
  const chartConfig: ChartConfiguration<'bar' | 'line'> = {
    type: isBar ? 'bar' : 'line',
    // The page's datasets carry fields of their own (text, unit, target) beside Chart.js's.
    data: { labels: spec.labels, datasets: spec.datasets as unknown as ChartDataset<'bar' | 'line'>[] },
    plugins: [targetLabels],
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      indexAxis: horizontal ? 'y' : 'x',
      interaction: { mode: 'index', intersect: false, axis: horizontal ? 'y' : 'x' },
      layout: { padding: { top: 14 } },
      plugins: {
        legend: { display: false },
        tooltip: {
          itemSort: byIndex,
          callbacks: {
            label(ctx) {
              const ds = ctx.dataset as unknown as PageDataset;
              const point = ds.formatted?.[ctx.dataIndex];
              const raw = horizontal ? ctx.parsed.x : ctx.parsed.y;
              const text = pointText(point || { value: raw }, ds.unit, config.decimals);
              return `${ds.label}: ${text}`;
            },
          },
        },
      },
      scales: horizontal ? { x: valueAxis, y: categoryAxis } : { x: categoryAxis, y: valueAxis },
    },
  };
  const chart = new ChartJs(canvas, chartConfig as ChartConfiguration);
  charts.push(chart);
  wrap.append(htmlLegend(chart));
  return wrap;
}
