// The element rules the screen checks itself, from the form definition, before anything is sent:
// numbers read in the person's locale, a NUMBER's minValue / maxValue / integer, and dates inside
// the period. The service checks the same rules again (and what only it knows: locks, rights,
// outliers); these messages name the field and its unit in plain words.
import { formatDate } from './format.js';
import { formatExact, readNumber } from './numbers.js';

const pad = (n) => String(n).padStart(2, '0');

/** The first and last day of a period, as `YYYY-MM-DD`. */
export function periodBounds(periodType, year, periodUnit) {
  const months = periodType === 'MONTHLY' ? 1 : periodType === 'QUARTERLY' ? 3 : 12;
  const first =
    periodType === 'MONTHLY' ? periodUnit : periodType === 'QUARTERLY' ? (periodUnit - 1) * 3 + 1 : 1;
  const last = new Date(Date.UTC(year, first - 1 + months, 0)).getUTCDate();
  return { start: `${year}-${pad(first)}-01`, end: `${year}-${pad(first - 1 + months)}-${pad(last)}` };
}

export const unitById = (units, id) => units.find((u) => u.id === id) ?? null;

/** A unit as people read it: its name ("cubic metre"), not its symbol ("m3"). */
export const unitName = (unit) => unit?.name || unit?.symbol || '';

/** The value the service stores for `value` typed in `typedUnit`, in the element's `baseUnit`. */
export function toStored(value, typedUnit, baseUnit) {
  if (!typedUnit || !baseUnit || typedUnit.id === baseUnit.id) return value;
  return (value * typedUnit.factorToBase) / baseUnit.factorToBase;
}

const outside = (label, day, bounds, what) =>
  `${label}: ${formatDate(day)} is outside ${what} (${formatDate(bounds.start)} to ${formatDate(bounds.end)}).`;

/** A NUMBER element's value against its rules; answers a message or null. */
export function numberRule(element, value, baseUnit) {
  const unit = unitName(baseUnit);
  const inUnit = unit ? ` (${unit})` : '';
  if (typeof element.minValue === 'number' && value < element.minValue) {
    return `${element.label} cannot be less than ${formatExact(element.minValue)}${inUnit}.`;
  }
  if (typeof element.maxValue === 'number' && value > element.maxValue) {
    return `${element.label} cannot be more than ${formatExact(element.maxValue)}${inUnit}.`;
  }
  if (element.integer && Math.abs(value - Math.round(value)) > 1e-9 * Math.max(1, Math.abs(value))) {
    return `${element.label} must be a whole number${unit ? ` of ${unit}` : ''}.`;
  }
  return null;
}

/**
 * The issues of one element's draft, as the screen shows them: `{ message, row?, input? }`.
 * `context` has the period (`periodType`, `year`, `periodUnit`, `title`) and the locale.
 */
export function localIssues(element, draft, data, context) {
  const bounds = periodBounds(context.periodType, context.year, context.periodUnit);
  const inPeriod = (day) => day >= bounds.start && day <= bounds.end;
  const issues = [];
  switch (element.type) {
    case 'NUMBER': {
      const read = readNumber(draft.text, context.locale);
      if (read.error) issues.push({ message: read.error });
      else if (read.value !== null) {
        const base = unitById(data.units, element.unitId);
        const typed = unitById(data.units, draft.unitId) ?? base;
        const message = numberRule(element, toStored(read.value, typed, base), base);
        if (message) issues.push({ message });
      }
      break;
    }
    case 'DATE':
      if (draft.text && !inPeriod(draft.text))
        issues.push({ message: outside(element.label, draft.text, bounds, context.title) });
      break;
    case 'TIMESTAMP':
      draft.rows.forEach((row, index) => {
        const read = readNumber(row.text, context.locale);
        if (read.error) issues.push({ row: index, message: `Reading ${index + 1}: ${read.error}` });
        if (row.at) {
          const day = new Date(row.at).toISOString().slice(0, 10);
          if (!inPeriod(day))
            issues.push({ row: index, message: outside(`Reading ${index + 1}`, day, bounds, context.title) });
        }
      });
      break;
    case 'ACTIVITY': {
      const definition = data.definitions.get(element.key);
      draft.rows.forEach((row, index) => {
        for (const input of definition?.inputs ?? []) {
          const text = row[input.name] ?? '';
          if (input.type === 'number') {
            const read = readNumber(text, context.locale);
            if (read.error) issues.push({ row: index, input: input.name, message: read.error });
          } else if (input.type === 'date' && text && !inPeriod(text)) {
            issues.push({
              row: index,
              input: input.name,
              message: outside('This date', text, bounds, context.title),
            });
          }
        }
      });
      break;
    }
    default:
  }
  return issues;
}
