// The element rules the screen checks itself, from the form definition, before anything is sent:
// numbers read in the person's locale, a NUMBER's minValue / maxValue / integer, and dates inside
// the period. The service checks the same rules again (and what only it knows: locks, rights,
// outliers); these messages name the field and its unit in plain words.

import type { FormElement, Unit } from './api-shapes.js';
import { formatDate, periodLabel } from './format.js';
import { t, textOf } from './i18n/index.js';
import { formatExact, readNumber } from './numbers.js';
import type { Draft, PeriodData, PlacedIssue } from './period-data.js';

/** The period the screen shows, and the person's locale. */
export type RuleContext = {
  periodType: string;
  year: number;
  periodUnit: number;
  title: string;
  locale: string;
};
/** An issue the screen found itself. */
export type LocalIssue = {
  message: string;
  row?: number;
  input?: string;
  type?: undefined;
  acknowledged?: undefined;
};

const pad = (n: number) => String(n).padStart(2, '0');

/** The first and last day of a period, as `YYYY-MM-DD`. */
export function periodBounds(periodType: string, year: number, periodUnit: number) {
  const months = periodType === 'MONTHLY' ? 1 : periodType === 'QUARTERLY' ? 3 : 12;
  const first =
    periodType === 'MONTHLY' ? periodUnit : periodType === 'QUARTERLY' ? (periodUnit - 1) * 3 + 1 : 1;
  const last = new Date(Date.UTC(year, first - 1 + months, 0)).getUTCDate();
  return { start: `${year}-${pad(first)}-01`, end: `${year}-${pad(first - 1 + months)}-${pad(last)}` };
}

export const unitById = (units: Unit[], id: string | null | undefined) =>
  units.find((u) => u.id === id) ?? null;

/** A unit as people read it: its name ("cubic metre"), not its symbol ("m3"). */
export const unitName = (unit: { name?: string; symbol?: string } | null | undefined) =>
  unit?.name || unit?.symbol || '';

/** The value the service stores for `value` typed in `typedUnit`, in the element's `baseUnit`. */
export function toStored(value: number, typedUnit: Unit | null, baseUnit: Unit | null) {
  if (!typedUnit || !baseUnit || typedUnit.id === baseUnit.id) return value;
  return (value * typedUnit.factorToBase) / baseUnit.factorToBase;
}

const outside = (
  label: string | undefined,
  day: string,
  bounds: { start: string; end: string },
  what: string,
) =>
  t('rule.outside', {
    label: label ?? '',
    day: formatDate(day),
    period: what,
    start: formatDate(bounds.start),
    end: formatDate(bounds.end),
  });

/** A NUMBER element's value against its rules; answers a message or null. */
export function numberRule(element: FormElement, value: number, baseUnit: Unit | null) {
  const unit = unitName(baseUnit);
  const label = textOf(element, 'label') ?? '';
  const withUnit = unit ? 'unit' : 'none';
  if (typeof element.minValue === 'number' && value < element.minValue) {
    return t('rule.min', { label, limit: formatExact(element.minValue), unit, withUnit });
  }
  if (typeof element.maxValue === 'number' && value > element.maxValue) {
    return t('rule.max', { label, limit: formatExact(element.maxValue), unit, withUnit });
  }
  if (element.integer && Math.abs(value - Math.round(value)) > 1e-9 * Math.max(1, Math.abs(value))) {
    return t('rule.integer', { label, unit, withUnit });
  }
  return null;
}

/**
 * The issues of one element's draft, as the screen shows them: `{ message, row?, input? }`.
 * `context` has the period (`periodType`, `year`, `periodUnit`, `title`) and the locale.
 */
export function localIssues(
  element: FormElement,
  draft: Draft,
  data: PeriodData,
  context: RuleContext,
): LocalIssue[] {
  const bounds = periodBounds(context.periodType, context.year, context.periodUnit);
  const inPeriod = (day: string) => day >= bounds.start && day <= bounds.end;
  const issues: LocalIssue[] = [];
  switch (element.type) {
    case 'NUMBER': {
      const read = readNumber(draft.text, context.locale);
      if (read.error) issues.push({ message: read.error });
      else if (typeof read.value === 'number') {
        const base = unitById(data.units, element.unitId);
        const typed = unitById(data.units, draft.unitId) ?? base;
        const message = numberRule(element, toStored(read.value, typed, base), base);
        if (message) issues.push({ message });
      }
      break;
    }
    case 'DATE':
      if (draft.text && !inPeriod(draft.text))
        issues.push({ message: outside(textOf(element, 'label'), draft.text, bounds, context.title) });
      break;
    case 'TIMESTAMP':
      (draft.rows ?? []).forEach((row, index) => {
        const read = readNumber(row.text, context.locale);
        if (read.error)
          issues.push({ row: index, message: t('rule.reading', { number: index + 1, error: read.error }) });
        if (row.at) {
          const day = new Date(row.at).toISOString().slice(0, 10);
          if (!inPeriod(day))
            issues.push({
              row: index,
              message: outside(t('rule.readingName', { number: index + 1 }), day, bounds, context.title),
            });
        }
      });
      break;
    case 'ACTIVITY': {
      const definition = data.definitions.get(element.key);
      (draft.rows ?? []).forEach((row, index) => {
        for (const input of definition?.inputs ?? []) {
          const text = row[input.name] ?? '';
          if (input.type === 'number') {
            const read = readNumber(text, context.locale);
            if (read.error) issues.push({ row: index, input: input.name, message: read.error });
          } else if (input.type === 'date' && text && !inPeriod(text)) {
            issues.push({
              row: index,
              input: input.name,
              message: outside(t('rule.thisDate'), text, bounds, context.title),
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

/**
 * An outlier the service reported, in the person's words: the numbers in their locale, the unit by
 * its name, the period compared with by its name ("Water drawn is 125.005 cubic metre against 40
 * cubic metre in Februar 2026: more than 3 times as much."). Falls back to the service's own
 * sentence when the issue has no structured fields.
 */
export function outlierText(element: FormElement, issue: PlacedIssue, context: RuleContext) {
  const { value, factor, change } = issue;
  const reference = issue.reference as { value: number; year: number; periodUnit: number } | undefined;
  if (typeof value !== 'number' || !reference || typeof factor !== 'number' || typeof change !== 'string')
    return issue.message;
  const unit = issue.unit ? unitName(issue.unit as Unit) : '';
  const of = (n: number) => `${formatExact(n, context.locale)}${unit ? ` ${unit}` : ''}`;
  const times = formatExact(factor, context.locale);
  const how = ['more', 'less', 'zero', 'sign'].includes(change)
    ? change === 'zero' && reference.value === 0
      ? 'wasZero'
      : change
    : 'none';
  const period = periodLabel(context.periodType, reference.year, reference.periodUnit);
  return t('rule.outlier', {
    label: textOf(element, 'label'),
    value: of(value),
    reference: of(reference.value),
    period,
    how,
    times,
  });
}
