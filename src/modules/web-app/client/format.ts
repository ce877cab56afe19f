// Numbers and dates in the person's locale (see i18n/locale.js); the API keeps plain numbers and ISO strings.
import { t } from './i18n/index.js';
import { formattingLocale } from './i18n/locale.js';

const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
/** An Intl formatter for the current formatting locale, made once per locale and options. */
function cached(kind: 'number', options: Intl.NumberFormatOptions): Intl.NumberFormat;
function cached(kind: 'date', options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat;
function cached(kind: 'number' | 'date', options: object): Intl.NumberFormat | Intl.DateTimeFormat {
  const locale = formattingLocale();
  const key = `${kind}|${locale}|${JSON.stringify(options)}`;
  let made = formatters.get(key);
  if (!made) {
    made =
      kind === 'number' ? new Intl.NumberFormat(locale, options) : new Intl.DateTimeFormat(locale, options);
    formatters.set(key, made);
  }
  return made;
}

const numberFormat = () => cached('number', { maximumFractionDigits: 6 });
const dateFormat = () => cached('date', { dateStyle: 'medium', timeZone: 'UTC' });
const timeFormat = () => cached('date', { dateStyle: 'medium', timeStyle: 'short' });
const monthYearFormat = () => cached('date', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const shortMonthFormat = () => cached('date', { month: 'short', timeZone: 'UTC' });
const dayFormat = () => cached('date', { month: 'short', day: 'numeric', timeZone: 'UTC' });

export const formatNumber = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) ? numberFormat().format(value) : '';
export const formatDate = (iso: string | null | undefined) => (iso ? dateFormat().format(new Date(iso)) : '');
/** "Apr 11": a due date inside its year's grid. */
export const formatDay = (iso: string | null | undefined) => (iso ? dayFormat().format(new Date(iso)) : '');
export const formatTime = (iso: string | null | undefined) => (iso ? timeFormat().format(new Date(iso)) : '');
/** A size: `512 B`, then Intl's own unit names in the locale (`1.5 kB`, `1,5 MB`). */
export const formatBytes = (bytes: unknown) => {
  if (typeof bytes !== 'number') return '';
  if (bytes < 1024) return `${formatNumber(bytes)} B`;
  const [value, unit]: [number, string] =
    bytes < 1024 * 1024
      ? [Math.round(bytes / 102.4) / 10, 'kilobyte']
      : [Math.round(bytes / 104857.6) / 10, 'megabyte'];
  return cached('number', { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 }).format(
    value,
  );
};

/** "March 2026", "Q2 2026", "2026" (in the person's language: "März 2026", "T2 2026"). */
export function periodLabel(periodType: string, year: number, periodUnit: number): string {
  if (periodType === 'MONTHLY') return monthYearFormat().format(Date.UTC(year, periodUnit - 1, 1));
  if (periodType === 'QUARTERLY') return t('period.quarterYear', { quarter: periodUnit, year: String(year) });
  return String(year);
}

/** "Mar", "Q2", "Year". */
export function shortPeriod(periodType: string, year: number, periodUnit: number): string {
  if (periodType === 'MONTHLY') return shortMonthFormat().format(Date.UTC(year, periodUnit - 1, 1));
  if (periodType === 'QUARTERLY') return t('period.quarter', { quarter: periodUnit });
  return String(year);
}

export const periodCount = (periodType: string): number =>
  (({ MONTHLY: 12, QUARTERLY: 4 }) as Record<string, number>)[periodType] ?? 1;

/** Completeness statuses in words (read when shown, in the current language). */
export const STATUS_WORDS: Record<string, string> = {
  get COMPLETE() {
    return t('status.complete');
  },
  get PARTIAL() {
    return t('status.partial');
  },
  get MISSING() {
    return t('status.missing');
  },
  get NO_ACTIVITY() {
    return t('status.noActivity');
  },
};

/** Review statuses of a value in words. */
export const REVIEW_WORDS: Record<string, string> = {
  get COMPLETED() {
    return t('review.status.entered');
  },
  get APPROVED() {
    return t('review.status.approved');
  },
  get REJECTED() {
    return t('review.status.rejected');
  },
};

/** A role in words: Owner, Manager, Collector, Viewer. */
export const roleName = (role: string | null) => t('role', { role });
