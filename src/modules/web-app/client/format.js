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
