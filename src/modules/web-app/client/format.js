// Numbers and dates in the browser's locale; the API keeps plain numbers and ISO strings.

const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 6 });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const monthFormat = new Intl.DateTimeFormat(undefined, { month: 'long', timeZone: 'UTC' });
const shortMonthFormat = new Intl.DateTimeFormat(undefined, { month: 'short', timeZone: 'UTC' });

export const formatNumber = (value) =>
  typeof value === 'number' && Number.isFinite(value) ? numberFormat.format(value) : '';
export const formatDate = (iso) => (iso ? dateFormat.format(new Date(iso)) : '');
const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
/** "Apr 11": a due date inside its year's grid. */
export const formatDay = (iso) => (iso ? dayFormat.format(new Date(iso)) : '');
export const formatTime = (iso) => (iso ? timeFormat.format(new Date(iso)) : '');
export const formatBytes = (bytes) => {
  if (typeof bytes !== 'number') return '';
  if (bytes < 1024) return `${formatNumber(bytes)} B`;
  if (bytes < 1024 * 1024) return `${formatNumber(Math.round(bytes / 102.4) / 10)} KB`;
  return `${formatNumber(Math.round(bytes / (1024 * 104.8576)) / 10)} MB`;
};

// The locale's decimal and group separators, to read what people type.
const parts = numberFormat.formatToParts(12345.6);
const DECIMAL = parts.find((p) => p.type === 'decimal')?.value ?? '.';
const GROUP = parts.find((p) => p.type === 'group')?.value ?? ',';

/**
 * A number typed in the browser's locale ("1,234.5" in English, "1.234,5" in German); a dot is
 * also read as the decimal point when the locale's is a comma and no comma was typed. Text that
 * is no number comes back as typed, for the service to refuse with its own message.
 */
export function parseNumber(text) {
  const trimmed = String(text).trim();
  if (trimmed === '') return null;
  let normalized = trimmed.replace(/[\s\u00a0\u202f]/g, '');
  if (DECIMAL === ',' && !normalized.includes(',')) {
    // "12.5" typed in a comma locale: a decimal point unless it groups thousands ("1.234").
    if (!/^-?\d{1,3}(\.\d{3})+$/.test(normalized)) return toNumber(normalized, trimmed);
  }
  normalized = normalized.split(GROUP).join('').replace(DECIMAL, '.');
  return toNumber(normalized, trimmed);
}

function toNumber(text, typed) {
  return /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text) ? Number(text) : typed;
}

/** A number as people type it back in this locale (no grouping). */
export const numberForInput = (value) =>
  typeof value === 'number' && Number.isFinite(value)
    ? new Intl.NumberFormat(undefined, { maximumFractionDigits: 10, useGrouping: false }).format(value)
    : '';

/** "March 2026", "Q2 2026", "2026". */
export function periodLabel(periodType, year, periodUnit) {
  if (periodType === 'MONTHLY') return `${monthFormat.format(Date.UTC(year, periodUnit - 1, 1))} ${year}`;
  if (periodType === 'QUARTERLY') return `Q${periodUnit} ${year}`;
  return String(year);
}

/** "Mar", "Q2", "Year". */
export function shortPeriod(periodType, year, periodUnit) {
  if (periodType === 'MONTHLY') return shortMonthFormat.format(Date.UTC(year, periodUnit - 1, 1));
  if (periodType === 'QUARTERLY') return `Q${periodUnit}`;
  return String(year);
}

export const periodCount = (periodType) => ({ MONTHLY: 12, QUARTERLY: 4 })[periodType] ?? 1;

export const STATUS_WORDS = {
  COMPLETE: 'Complete',
  PARTIAL: 'Partial',
  MISSING: 'Missing',
  NO_ACTIVITY: 'No activity',
};

export const REVIEW_WORDS = { COMPLETED: 'Entered', APPROVED: 'Approved', REJECTED: 'Rejected' };
