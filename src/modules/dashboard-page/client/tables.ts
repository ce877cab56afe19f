import { pointText, seriesName } from './format.ts';
import { say } from './language.ts';
import { el } from './page.ts';
import { periodsOf, pointsAt, valuesAt } from './periods.ts';
import type { Point, ViewSeries, ViewWidgetConfig } from './types.ts';

// TABLE widgets: a row per period and a column per series (and target), or, for a breakdown
// with more sites than periods, a row per site (and target) and a column per period.

const targetName = (name: string | null) => say('target', { name: name || say('targetDefault') });

export function drawTable(series: ViewSeries[], config: ViewWidgetConfig): HTMLElement {
  const { periods, labels } = periodsOf(series);
  if (series.some((s) => s.siteId) && series.length > periods.length) {
    return drawSiteTable(series, config, periods, labels);
  }
  const columns: Array<{ name: string; unit: string | null; points: Array<Point | null> }> = [];
  for (const s of series) {
    columns.push({ name: seriesName(s, series), unit: s.unit, points: pointsAt(s.points, periods) });
    if (config.showTarget) {
      for (const t of s.targets ?? []) {
        columns.push({ name: targetName(t.name), unit: s.unit, points: pointsAt(t.points, periods) });
      }
    }
  }
  const head = el('tr');
  head.append(el('th', '', say('period')));
  for (const c of columns) head.append(el('th', 'num', c.name));
  const tbody = el('tbody');
  periods.forEach((_, i) => {
    const row = el('tr');
    row.append(el('td', '', labels[i]));
    for (const c of columns) row.append(el('td', 'num', pointText(c.points[i], c.unit, config.decimals)));
    tbody.append(row);
  });
  return wrapped(el('table'), head, tbody);
}

function wrapped(table: HTMLTableElement, head: HTMLTableRowElement, tbody: HTMLElement): HTMLElement {
  const thead = el('thead');
  thead.append(head);
  table.append(thead, tbody);
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  return wrap;
}

/** A breakdown with more sites than periods: a row per site (and per target), a column per period. */
function drawSiteTable(
  series: ViewSeries[],
  config: ViewWidgetConfig,
  allPeriods: string[],
  allLabels: string[],
): HTMLElement {
  // Periods where no site and no target has a value (future years of a long filter) are left out.
  const shown = allPeriods
    .map((p, i) => ({ p, label: allLabels[i] ?? p }))
    .filter(({ p }) =>
      series.some(
        (s) =>
          valuesAt(s.points, [p])[0] !== null ||
          (config.showTarget && (s.targets ?? []).some((t) => valuesAt(t.points, [p])[0] !== null)),
      ),
    );
  const periods = shown.length ? shown.map((x) => x.p) : allPeriods;
  const labels = shown.length ? shown.map((x) => x.label) : allLabels;
  // One unit for every row: it goes into the column heads, the cells hold the numbers (narrow
  // enough for a phone).
  const units = new Set(series.map((s) => s.unit));
  const unit = units.size === 1 ? [...units][0] : null;
  const cellText = (point: Point | null, rowUnit: string | null) => {
    const text = pointText(point, rowUnit, config.decimals);
    return unit && text.endsWith(` ${unit}`) ? text.slice(0, -unit.length - 1) : text;
  };
  const head = el('tr');
  head.append(el('th', '', say('site')));
  for (const label of labels) head.append(el('th', 'num', unit ? `${label} (${unit})` : label));
  const tbody = el('tbody');
  const addRow = (name: string, rowUnit: string | null, points: Point[], className?: string) => {
    const row = el('tr', className);
    row.append(el('th', 'row-name', name));
    for (const point of pointsAt(points, periods)) row.append(el('td', 'num', cellText(point, rowUnit)));
    tbody.append(row);
  };
  for (const s of series) {
    addRow(seriesName(s, series), s.unit, s.points);
    if (config.showTarget) {
      for (const t of s.targets ?? []) addRow(targetName(t.name), s.unit, t.points, 'target-row');
    }
  }
  return wrapped(el('table', 'site-table'), head, tbody);
}
