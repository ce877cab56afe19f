// The service's issues in the person's language (decision 225). An issue with a documented code is
// said by the message `issue.<code>` with the issue's params: numbers, dates and periods formatted
// here, by Intl, in the person's locale. An issue without a code, or with a code this app does not
// know (a newer service), keeps the service's own sentence.
import { formatBytes, formatDate, periodLabel } from './format.js';
import { t } from './i18n/index.js';
import { formatExact } from './numbers.js';

/** An issue of the service as the app reads it: its sentence, and a documented code with its params. */
type CodedIssue = { message?: string; code?: unknown; params?: unknown };
type Params = Record<string, unknown>;
/** What ICU messages are formatted with. */
type Values = Record<string, string | number | boolean | null | undefined>;

/** Params that are quantities: shown with the locale's digits and separators. */
const NUMBERS = ['min', 'max', 'value', 'limit', 'sentValue', 'count'];
/** Params that are sizes in bytes: shown in kB or MB in the locale. */
const SIZES = ['maxBytes', 'quotaBytes', 'usedBytes'];
/** Params that are years: shown as written (2025, not 2.025). */
const YEARS = ['firstYear', 'lastYear', 'dateYear'];
/** Params that are calendar days (`YYYY-MM-DD`) or times. */
const DAYS = ['date', 'first', 'last', 'timestamp'];

/** The values a message is formatted with: the issue's params, formatted for the person. */
function valuesOf(params: Params): Values {
  const values: Values = {};
  for (const [name, value] of Object.entries(params)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value))
      values[name] = value as Values[string];
  }
  for (const name of NUMBERS) {
    const value = params[name];
    if (typeof value === 'number') values[name] = formatExact(value);
  }
  for (const name of SIZES) {
    const value = params[name];
    if (typeof value === 'number') values[name] = formatBytes(value);
  }
  // A file without an extension (a select's case of its own).
  if (params['extension'] === '') values['extension'] = 'none';
  for (const name of YEARS) {
    const value = params[name];
    if (typeof value === 'number') values[name] = String(value);
  }
  for (const name of DAYS) {
    const value = params[name];
    if (typeof value === 'string') values[name] = formatDate(value);
  }
  const { year, periodType, periodUnit } = params;
  if (typeof year === 'number') {
    values['year'] = String(year);
    values['period'] =
      typeof periodType === 'string' && periodType !== '' && typeof periodUnit === 'number'
        ? periodLabel(periodType, year, periodUnit)
        : String(year);
  }
  // The unit by its name ("cubic metre") where the service read one, else its symbol.
  values['unit'] = String(params['unitName'] || params['unit'] || '');
  values['withUnit'] = values['unit'] ? 'unit' : 'none';
  values['named'] = params['label'] ? 'yes' : 'no';
  values['label'] = typeof params['label'] === 'string' ? params['label'] : '';
  values['field'] = typeof params['field'] === 'string' ? params['field'] : '';
  return values;
}

/** One issue of the service (`{message, path?, code?, params?}`) as the person reads it. */
export function issueText(issue: CodedIssue | null | undefined): string {
  const message = issue?.message ?? '';
  const code = issue?.code;
  if (typeof code !== 'string' || code === '') return message;
  const key = `issue.${code}`;
  const params = issue?.params && typeof issue.params === 'object' ? (issue.params as Params) : {};
  try {
    const text = t(key, valuesOf(params));
    return text === key ? message : text;
  } catch {
    // A code whose params are not what this app's message needs: the service's sentence.
    return message;
  }
}
