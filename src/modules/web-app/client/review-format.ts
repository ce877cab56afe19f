// How the review screen and the home show stored values to people: in the person's locale,
// with option labels, units and file sizes, never a stored code or an ISO string.
import { t, textOf } from './i18n/index.js';
import { formattingLocale } from './i18n/locale.js';

type Formatter = { format(value: number | Date): string };
const made = new Map<string, Formatter>();
/** One Intl formatter per formatting locale and options. */
const intl = (
  kind: 'number' | 'date',
  options: Intl.NumberFormatOptions & Intl.DateTimeFormatOptions,
): Formatter => {
  const key = `${kind}|${formattingLocale()}|${JSON.stringify(options)}`;
  let format = made.get(key);
  if (!format) {
    format =
      kind === 'number'
        ? new Intl.NumberFormat(formattingLocale(), options)
        : new Intl.DateTimeFormat(formattingLocale(), options);
    made.set(key, format);
  }
  return format;
};
const number = { format: (v: number | Date) => intl('number', { maximumFractionDigits: 6 }).format(v) };
const day = {
  format: (v: number | Date) => intl('date', { dateStyle: 'medium', timeZone: 'UTC' }).format(v),
};
const moment = {
  format: (v: number | Date) => intl('date', { dateStyle: 'medium', timeStyle: 'short' }).format(v),
};
const month = {
  format: (v: number | Date) => intl('date', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(v),
};
const monthOnly = {
  format: (v: number | Date) => intl('date', { month: 'long', timeZone: 'UTC' }).format(v),
};

/** A number as the reader writes it ("12,500.5" in en-US, "12 500,5" in fr-FR); '' for anything else. */
export const showNumber = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) ? number.format(value) : '';

/** A stored `YYYY-MM-DD` date as the reader writes dates; other text as it is. */
export function showDay(text: unknown) {
  if (typeof text !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return String(text ?? '');
  const at = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? text : day.format(at);
}

/** An ISO time in the reader's time zone and words. */
export const showMoment = (iso: string | null | undefined) => (iso ? moment.format(new Date(iso)) : '');

/** A file size in B, KB or MB (1 KB = 1,024 bytes), with the reader's decimal sign. */
export function showBytes(bytes: unknown) {
  if (typeof bytes !== 'number') return '';
  const one = intl('number', { maximumFractionDigits: 1 });
  if (bytes < 1024) return `${number.format(bytes)} B`;
  if (bytes < 1024 * 1024) return `${one.format(bytes / 1024)} KB`;
  return `${one.format(bytes / (1024 * 1024))} MB`;
}

const PERIODS: Record<string, number> = { MONTHLY: 12, QUARTERLY: 4, YEARLY: 1 };
/** How many periods a year of this period type has. */
export const periodsIn = (periodType: string) => PERIODS[periodType] ?? 1;

/** A period in words: "March 2025", "Q2 2025", "2025"; without a year "March", "Q2", "The year". */
export function periodWords(periodType: string, year: number | null, unit: number) {
  if (periodType === 'MONTHLY') return (year ? month : monthOnly).format(Date.UTC(year || 2000, unit - 1, 1));
  if (periodType === 'QUARTERLY')
    return year
      ? t('period.quarterYear', { quarter: unit, year: String(year) })
      : t('period.quarter', { quarter: unit });
  return year ? String(year) : t('period.theYear');
}

/**
 * A stored value in words for its element (from GET /forms): the option's label for SELECT, Yes/No,
 * the date in the reader's words, the number with the unit's symbol. FILE and ACTIVITY values have
 * their own components.
 */
export function valueWords(
  item: { value: unknown; elementType: string; timestamp?: string | null },
  element:
    | { unitId?: string | null; options?: { value: unknown; label: string }[] | null }
    | null
    | undefined,
  units: Map<string, { symbol: string }>,
) {
  const value = item.value;
  if (value === null || value === undefined) return '—';
  switch (item.elementType) {
    case 'NUMBER': {
      const unit = units.get(element?.unitId ?? '')?.symbol;
      return `${showNumber(value)}${unit ? ` ${unit}` : ''}`;
    }
    case 'SELECT':
      return (
        textOf(
          element?.options?.find((o) => o.value === value),
          'label',
        ) ?? String(value)
      );
    case 'BOOLEAN':
      return value ? t('field.yes') : t('field.no');
    case 'DATE':
      return showDay(value);
    case 'TIMESTAMP':
      return t('review.valueAt', {
        value: typeof value === 'number' ? showNumber(value) : String(value),
        time: showMoment(item.timestamp),
      });
    default:
      return typeof value === 'number' ? showNumber(value) : String(value);
  }
}

/** "Mar 31": a day of a year already named around it (a time in ms or an ISO string). */
export const showShortDay = (at: string | number) =>
  intl('date', { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(new Date(at));
