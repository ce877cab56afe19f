import { periodCaption } from './format.ts';
import type { Point, ViewSeries } from './types.ts';

// The periods of a widget and its values at them: shared by the charts and the tables.

/** The periods of a widget, in order, with their labels (from the series, else the targets). */
export function periodsOf(series: ViewSeries[]): { periods: string[]; labels: string[] } {
  const labels = new Map<string, string>();
  for (const s of series) for (const p of s.points ?? []) labels.set(p.period, periodCaption(p));
  if (!labels.size) {
    for (const s of series)
      for (const target of s.targets ?? [])
        for (const p of target.points) labels.set(p.period, periodCaption(p));
  }
  const periods = [...labels.keys()].sort();
  return { periods, labels: periods.map((p) => labels.get(p) ?? p) };
}

/** The raw values of `points` at `periods` (null where there is none). */
export function valuesAt(points: Point[] | undefined, periods: string[]): Array<number | null> {
  const byPeriod = new Map((points ?? []).map((p) => [p.period, p]));
  return periods.map((period) => byPeriod.get(period)?.value ?? null);
}

/** The points of `points` at `periods` (null where there is none). */
export function pointsAt(points: Point[] | undefined, periods: string[]): Array<Point | null> {
  const byPeriod = new Map((points ?? []).map((p) => [p.period, p]));
  return periods.map((period) => byPeriod.get(period) ?? null);
}

/** The periods where some series has a value. */
export const filledPeriods = (series: ViewSeries[], periods: string[]): string[] =>
  periods.filter((p) => series.some((s) => valuesAt(s.points, [p])[0] !== null));
