import { LOCALE, numberText, say } from './language.ts';
import type { Point, Problem, ViewSeries, Shown } from './types.ts';

// How the page writes the service's values: numbers, periods, series names, error bodies. The
// service formats values and periods in English; on a page in another language the page writes
// them itself from the raw values (decision 230).

/**
 * A point's text: as the API formatted it (with the unit, and the widget's decimals when set);
 * a value without that text, and every value on a page in another language than English, is
 * formatted here the same way in the page's language (`decimals` or up to 2 places).
 */
export function pointText(point: Shown | null | undefined, unit: string | null, decimals?: number): string {
  if (!point || point.value === null || point.value === undefined) return '—';
  if (point.formatted && (LOCALE === 'en' || typeof point.value !== 'number')) return point.formatted;
  const number = numberText(point.value, decimals);
  return unit ? `${number} ${unit}` : number;
}

/** A period's label in the page's language ("März 2025", "T1 2025"); the API's (English) otherwise. */
export function periodCaption(point: Point): string {
  if (LOCALE === 'en') return point.label;
  const month = /^(\d{4})-(\d{2})$/.exec(String(point.period));
  if (month) {
    const at = Date.UTC(Number(month[1]), Number(month[2]) - 1, 1);
    return new Intl.DateTimeFormat(LOCALE, { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(at);
  }
  const quarter = /^(\d{4})-Q([1-4])$/.exec(String(point.period));
  if (quarter?.[1]) return say('quarter', { quarter: Number(quarter[2]), year: quarter[1] });
  return point.label;
}

/**
 * A series' name: its indicator's, with its site's in breakdowns (the site's alone when the
 * widget shows one indicator: the title says which).
 */
export function seriesName(s: ViewSeries, all: ViewSeries[] = [s]): string {
  if (!s.siteName) return s.name;
  return new Set(all.map((x) => x.indicatorId)).size === 1 ? s.siteName : `${s.name} · ${s.siteName}`;
}

/**
 * An error body's text: the service's message and issues on an English page; the page's own
 * sentence (`fallback`) in another language, since the service writes its messages in English.
 */
export function problemText(problem: Problem | undefined, fallback: string): string {
  if (LOCALE !== 'en') return fallback;
  return [
    problem?.message || fallback,
    ...(problem?.issues ?? []).map((i) => i.message).filter(Boolean),
  ].join(' ');
}

/** A name for a category axis, shortened; the tooltip shows the whole name. */
export const shorten = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** The time of `iso` in the page's language (`dateStyle` medium with the time, or the time alone). */
export function timeText(iso: string, withDate: boolean): string {
  const at = new Date(iso);
  return withDate
    ? at.toLocaleString(LOCALE, { dateStyle: 'medium', timeStyle: 'short' })
    : at.toLocaleTimeString(LOCALE, { timeStyle: 'short' });
}
