// The service's issues in the person's language (decision 225). An issue with a documented code is
// said by the message `issue.<code>` with the issue's params: numbers, dates and periods formatted
// here, by Intl, in the person's locale. An issue without a code, or with a code this app does not
// know (a newer service), keeps the service's own sentence.
import { formatDate, periodLabel } from './format.js';
import { t } from './i18n/index.js';
import { formatExact } from './numbers.js';

/** Params that are quantities: shown with the locale's digits and separators. */
const NUMBERS = ['min', 'max', 'value', 'limit', 'sentValue'];
/** Params that are calendar days (`YYYY-MM-DD`) or times. */
const DAYS = ['date', 'first', 'last', 'timestamp'];

/** The values a message is formatted with: the issue's params, formatted for the person. */
function valuesOf(params) {
  const values = { ...params };
  for (const name of NUMBERS) if (typeof params[name] === 'number') values[name] = formatExact(params[name]);
  for (const name of DAYS) if (typeof params[name] === 'string') values[name] = formatDate(params[name]);
  if (typeof params.year === 'number') {
    values.year = String(params.year);
    values.period =
      params.periodType && typeof params.periodUnit === 'number'
        ? periodLabel(params.periodType, params.year, params.periodUnit)
        : String(params.year);
  }
  // The unit by its name ("cubic metre") where the service read one, else its symbol.
  values.unit = params.unitName || params.unit || '';
  values.withUnit = values.unit ? 'unit' : 'none';
  values.named = params.label ? 'yes' : 'no';
  values.label = params.label ?? '';
  values.field = params.field ?? '';
  return values;
}

/** One issue of the service (`{message, path?, code?, params?}`) as the person reads it. */
export function issueText(issue) {
  const code = issue?.code;
  if (typeof code !== 'string' || code === '') return issue?.message ?? '';
  const key = `issue.${code}`;
  try {
    const text = t(key, valuesOf(issue.params ?? {}));
    return text === key ? issue.message : text;
  } catch {
    // A code whose params are not what this app's message needs: the service's sentence.
    return issue.message;
  }
}
