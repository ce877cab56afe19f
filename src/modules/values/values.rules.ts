import type { IssueCode, IssueParams } from '../../domain/issue-codes.ts';
import { MONTHS_PER_PERIOD, periodLabel } from '../../domain/periods.ts';
import type { UnitFactor } from '../units/index.ts';
import type { ElementInfo, PeriodWindow } from './element-types.ts';

/**
 * The plausibility rules a value is checked against when it is written (decision 159): a NUMBER
 * element's limits and whole-number rule, and the period every date of a value must fall in.
 * Messages are whole sentences naming the element by its label (never its key or id).
 */

/** A period as people name it: "March 2025", "Q2 2025", "2025". */
export function periodName({ year, periodType, periodUnit }: PeriodWindow): string {
  return periodLabel(year, periodType, periodUnit);
}

/** The first and last day of a period, as `YYYY-MM-DD` (UTC calendar days). */
export function periodDays(window: PeriodWindow): { first: string; last: string } {
  const months = MONTHS_PER_PERIOD[window.periodType];
  const start = Date.UTC(window.year, (window.periodUnit - 1) * months, 1);
  const end = Date.UTC(window.year, window.periodUnit * months, 1) - 86_400_000;
  return {
    first: new Date(start).toISOString().slice(0, 10),
    last: new Date(end).toISOString().slice(0, 10),
  };
}

/** A rule a value breaks: the sentence, and its documented code and values (decision 225). */
export interface RuleProblem {
  message: string;
  code: IssueCode;
  params: IssueParams;
}

/**
 * Why a date (`YYYY-MM-DD`, already checked to be one) is outside the period, or null. `what`
 * names the field for people ("Invoice date").
 */
export function dateOutsidePeriod(what: string, date: string, window: PeriodWindow): string | null {
  return dateOutsidePeriodIssue(what, date, window)?.message ?? null;
}

/** `dateOutsidePeriod` with its code and values. */
export function dateOutsidePeriodIssue(what: string, date: string, window: PeriodWindow): RuleProblem | null {
  const { first, last } = periodDays(window);
  // ISO dates compare as text.
  if (date >= first && date <= last) return null;
  return {
    message: `${what} must be within ${periodName(window)} (${first} to ${last}); ${date} is not`,
    code: 'value.dateOutsidePeriod',
    params: { label: what, date, first, last, ...window },
  };
}

/** A number as a message shows it: at most 12 significant digits (no 1199.9999999999998). */
export function shown(value: number): string {
  return String(Number(value.toPrecision(12)));
}

const withUnit = (value: number, unit: UnitFactor | undefined) =>
  unit ? `${shown(value)} ${unit.symbol}` : shown(value);

/**
 * Why a NUMBER value breaks its element's rules, or null. `value` is in the element's unit (after
 * conversion); `sent` is what was sent, in `sentUnit`, when it was converted, so the message can
 * say what the sent value came to.
 */
export function numberRuleProblem(
  element: ElementInfo,
  value: number,
  elementUnit: UnitFactor | undefined,
  sent?: { value: number; unit: UnitFactor },
): string | null {
  return numberRuleIssue(element, value, elementUnit, sent)?.message ?? null;
}

/** `numberRuleProblem` with its code and values (the limits and the value raw, the unit named). */
export function numberRuleIssue(
  element: ElementInfo,
  value: number,
  elementUnit: UnitFactor | undefined,
  sent?: { value: number; unit: UnitFactor },
): RuleProblem | null {
  const label = element.label;
  const converted = sent ? ` (${withUnit(sent.value, sent.unit)} is ${withUnit(value, elementUnit)})` : '';
  const unit: IssueParams = elementUnit
    ? { unit: elementUnit.symbol, unitName: elementUnit.name || elementUnit.symbol }
    : {};
  const values: IssueParams = {
    label,
    value,
    ...unit,
    ...(sent ? { sentValue: sent.value, sentUnit: sent.unit.symbol } : {}),
  };
  const min = element.min_value ?? null;
  const max = element.max_value ?? null;
  if (min !== null && value < min)
    return {
      message: `${label} must be at least ${withUnit(min, elementUnit)}${converted}`,
      code: 'value.belowMinimum',
      params: { ...values, min },
    };
  if (max !== null && value > max)
    return {
      message: `${label} must be at most ${withUnit(max, elementUnit)}${converted}`,
      code: 'value.aboveMaximum',
      params: { ...values, max },
    };
  if (element.integer_only && !Number.isInteger(value)) {
    return {
      message: `${label} must be a whole number${elementUnit ? ` of ${elementUnit.symbol}` : ''}${converted}`,
      code: 'value.notWhole',
      params: values,
    };
  }
  return null;
}
