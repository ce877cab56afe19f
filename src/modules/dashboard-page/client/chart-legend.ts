import type { Chart, Plugin } from 'chart.js';
import type { PageDataset } from './chart-styles.ts';
import { body, el } from './page.ts';

// What names the lines of a chart: the targets' names at their last points, and the legend as
// a list of buttons under the chart.

const datasetsOf = (chart: Chart): PageDataset[] => chart.data.datasets as unknown as PageDataset[];

/**
 * ViewTarget lines carry their name at their last point, right-aligned to it, above the line: the
 * line is labelled where it ends, whatever the legend shows.
 */
export const targetLabels: Plugin = {
  id: 'sdcsTargetLabels',
  afterDatasetsDraw(chart) {
    const { ctx, chartArea } = chart;
    ctx.save();
    ctx.font = `600 11px ${window.Chart?.defaults.font.family ?? 'sans-serif'}`;
    ctx.textBaseline = 'bottom';
    const halo = getComputedStyle(body).getPropertyValue('--card').trim() || '#fff';
    datasetsOf(chart).forEach((ds, i) => {
      if (!ds.target || !ds.directLabel || !chart.isDatasetVisible(i)) return;
      const meta = chart.getDatasetMeta(i);
      let last = -1;
      ds.data.forEach((v, j) => {
        if (v !== null && v !== undefined) last = j;
      });
      const point = meta.data[last];
      if (!point) return;
      const text = ds.directLabel;
      const width = ctx.measureText(text).width;
      // Beside the end of the line, on the side the line does not come from: under a line
      // that comes down to its last point, above one that comes up (or a lone point).
      let previous: { y: number } | null = null;
      for (let j = last - 1; j >= 0 && !previous; j--) {
        if (ds.data[j] !== null && ds.data[j] !== undefined) previous = meta.data[j] ?? null;
      }
      // Right of the last point when there is room there (a path that ends before the
      // chart's last period), else beside the line's end.
      const room = chartArea.right - point.x > width + 14;
      const below = previous !== null && previous.y < point.y;
      const x = room
        ? point.x + 10
        : Math.min(Math.max(point.x - width - 8, chartArea.left + 2), chartArea.right - width - 2);
      const y = room
        ? point.y + 5
        : below
          ? Math.min(point.y + 20, chartArea.bottom - 2)
          : Math.max(point.y - 10, chartArea.top + 12);
      ctx.lineWidth = 3;
      ctx.strokeStyle = halo;
      ctx.strokeText(text, x, y);
      ctx.fillStyle = ds.borderColor;
      ctx.fillText(text, x, y);
    });
    ctx.restore();
  },
};

/**
 * The chart's legend as a list under it: it wraps over as many lines as it needs, so every
 * entry shows, on a phone too. A click hides or shows the entry's dataset.
 */
export function htmlLegend(chart: Chart): HTMLUListElement {
  const list = el('ul', 'legend');
  datasetsOf(chart).forEach((ds, i) => {
    // A list item holding a real button (a list item with a button role leaves the list
    // without items for assistive technology).
    const item = el('button', ds.target ? 'legend-item legend-target' : 'legend-item');
    item.type = 'button';
    item.setAttribute('aria-pressed', 'true');
    const swatch = el('span', ds.type === 'bar' ? 'swatch swatch-bar' : 'swatch swatch-line');
    const color = ds.borderColor;
    if (ds.type === 'bar') {
      swatch.style.background = color;
      if (ds.hatched) swatch.classList.add('swatch-hatched');
    } else {
      const dash = ds.borderDash ?? [];
      swatch.style.borderTopColor = color;
      swatch.style.borderTopStyle = dash.length === 0 ? 'solid' : (dash[0] ?? 0) <= 3 ? 'dotted' : 'dashed';
      if (ds.target || (ds.pointRadius ?? 0) > 0) {
        const mark = el('span', `mark mark-${ds.target ? 'rectRot' : ds.pointStyle || 'circle'}`);
        mark.style.background = color;
        swatch.append(mark);
      }
    }
    item.append(swatch, el('span', 'legend-text', ds.label));
    item.addEventListener('click', () => {
      const visible = !chart.isDatasetVisible(i);
      chart.setDatasetVisibility(i, visible);
      item.classList.toggle('legend-off', !visible);
      item.setAttribute('aria-pressed', String(visible));
      chart.update();
    });
    const entry = el('li', 'legend-entry');
    entry.append(item);
    list.append(entry);
  });
  return list;
}
