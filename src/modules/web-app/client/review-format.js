// How the review screen and the home show stored values to people: in the browser's locale,
// with option labels, units and file sizes, never a stored code or an ISO string.

const locale = undefined; // the browser's
const number = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 });
const day = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
const moment = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
const month = new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' });
const monthOnly = new Intl.DateTimeFormat(locale, { month: 'long', timeZone: 'UTC' });

/** A number as the reader writes it ("12,500.5" in en-US, "12 500,5" in fr-FR); '' for anything else. */
export const showNumber = (value) =>
  typeof value === 'number' && Number.isFinite(value) ? number.format(value) : '';

/** A stored `YYYY-MM-DD` date as the reader writes dates; other text as it is. */
export function showDay(text) {
  if (typeof text !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return String(text ?? '');
  const at = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? text : day.format(at);
}

/** An ISO time in the reader's time zone and words. */
export const showMoment = (iso) => (iso ? moment.format(new Date(iso)) : '');

/** A file size in B, KB or MB (1 KB = 1,024 bytes), with the reader's decimal sign. */
export function showBytes(bytes) {
  if (typeof bytes !== 'number') return '';
  const one = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
  if (bytes < 1024) return `${number.format(bytes)} B`;
  if (bytes < 1024 * 1024) return `${one.format(bytes / 1024)} KB`;
  return `${one.format(bytes / (1024 * 1024))} MB`;
}

const PERIODS = { MONTHLY: 12, QUARTERLY: 4, YEARLY: 1 };
/** How many periods a year of this period type has. */
export const periodsIn = (periodType) => PERIODS[periodType] ?? 1;

/** A period in words: "March 2025", "Q2 2025", "2025"; without a year "March", "Q2", "The year". */
export function periodWords(periodType, year, unit) {
  if (periodType === 'MONTHLY') return (year ? month : monthOnly).format(Date.UTC(year || 2000, unit - 1, 1));
  if (periodType === 'QUARTERLY') return year ? `Q${unit} ${year}` : `Q${unit}`;
  return year ? String(year) : 'The year';
}

/** The status of a value in the review's words. */
export const VALUE_WORDS = { COMPLETED: 'Entered', APPROVED: 'Approved', REJECTED: 'Rejected' };

/**
 * A stored value in words for its element (from GET /forms): the option's label for SELECT, Yes/No,
 * the date in the reader's words, the number with the unit's symbol. FILE and ACTIVITY values have
 * their own components.
 */
export function valueWords(item, element, units) {
  const value = item.value;
  if (value === null || value === undefined) return '—';
  switch (item.elementType) {
    case 'NUMBER': {
      const unit = units.get(element?.unitId ?? '')?.symbol;
      return `${showNumber(value)}${unit ? ` ${unit}` : ''}`;
    }
    case 'SELECT':
      return element?.options?.find((o) => o.value === value)?.label ?? String(value);
    case 'BOOLEAN':
      return value ? 'Yes' : 'No';
    case 'DATE':
      return showDay(value);
    case 'TIMESTAMP':
      return `${typeof value === 'number' ? showNumber(value) : String(value)} (at ${showMoment(item.timestamp)})`;
    default:
      return typeof value === 'number' ? showNumber(value) : String(value);
  }
}

const shortDay = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' });
/** "Mar 31": a day of a year already named around it (a time in ms or an ISO string). */
export const showShortDay = (at) => shortDay.format(new Date(at));
