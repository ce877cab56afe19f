import type { Chart } from 'chart.js';
import type { Shown, Theme } from './types.ts';

// How series look on a chart: the palette, and past it a dash, a point shape or a hatch, so
// that series keep apart without color alone. Chart.js is its own file (served beside the page's
// script, `window.Chart`); only its types are imported here.

declare global {
  interface Window {
    Chart?: typeof Chart;
  }
}

/** One dataset as the page builds it: Chart.js's fields, and the page's own (text, unit, target). */
export interface PageDataset {
  type: 'bar' | 'line';
  label: string;
  data: Array<number | null>;
  /** The points behind `data`, for the tooltip's text. */
  formatted?: Array<Shown | null>;
  unit: string | null;
  target?: boolean;
  /** A target's name and last value, written at its last point. */
  directLabel?: string;
  hatched?: boolean;
  borderColor: string;
  backgroundColor: string | CanvasPattern;
  borderDash?: number[];
  borderWidth?: number;
  borderRadius?: number;
  pointStyle?: string;
  pointRadius?: number;
  pointHoverRadius?: number;
  pointBackgroundColor?: string;
  pointBorderWidth?: number;
  tension?: number;
  spanGaps?: boolean;
  fill?: boolean;
  showLine?: boolean;
  order: number;
}

const DEFAULT_COLORS = [
  '#0f766e',
  '#2563eb',
  '#d97706',
  '#7c3aed',
  '#dc2626',
  '#0891b2',
  '#65a30d',
  '#db2777',
  '#92400e',
  '#475569',
];
const DASHES: Record<string, number[]> = { solid: [], dashed: [8, 4], dotted: [2, 3] };
export const TARGET_DASH = [6, 4];
// Beyond the palette, series keep apart by their line's dash and their points' shape (lines),
// or by a hatch pattern (bars): the nth series past the palette gets the nth variant.
const VARIANT_DASHES = [[], [7, 3], [2, 3], [10, 3, 2, 3]];
const POINT_STYLES = ['circle', 'rect', 'triangle', 'rectRot', 'star', 'crossRot'];

export const palette = (theme: Theme): string[] =>
  Array.isArray(theme.customColors) && theme.customColors.length ? theme.customColors : DEFAULT_COLORS;

export const dashOf = (style: string | undefined): number[] => DASHES[style ?? 'solid'] ?? [];

/** A diagonal hatch in a color: bars past the palette's colors. */
function hatch(color: string, variant: number): string | CanvasPattern {
  const size = 8;
  const tile = document.createElement('canvas');
  tile.width = size;
  tile.height = size;
  const ctx = tile.getContext('2d');
  if (!ctx) return color;
  ctx.fillStyle = color;
  ctx.globalAlpha = 0.35;
  ctx.fillRect(0, 0, size, size);
  ctx.globalAlpha = 1;
  ctx.strokeStyle = color;
  ctx.lineWidth = 2;
  ctx.beginPath();
  if (variant % 2 === 1) {
    ctx.moveTo(0, size);
    ctx.lineTo(size, 0);
  } else {
    ctx.moveTo(0, 0);
    ctx.lineTo(size, size);
  }
  ctx.stroke();
  return ctx.createPattern(tile, 'repeat') || color;
}

export interface SeriesStyle {
  color: string;
  fill: string | CanvasPattern;
  dash: number[];
  pointStyle: string;
}

/** The look of the nth series: its color, and past the palette a dash, point shape or hatch. */
export function styleOf(colors: string[], i: number, isBar: boolean): SeriesStyle {
  const color = colors[i % colors.length] ?? '#0f766e';
  const variant = Math.floor(i / colors.length);
  return {
    color,
    fill: isBar && variant > 0 ? hatch(color, variant) : color,
    dash: isBar ? [] : (VARIANT_DASHES[variant % VARIANT_DASHES.length] ?? []),
    pointStyle: isBar ? 'rect' : (POINT_STYLES[i % POINT_STYLES.length] ?? 'circle'),
  };
}
