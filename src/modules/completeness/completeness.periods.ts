import type { PeriodType } from '../../db/schema/index.ts';

export const LAST_PERIOD: Record<PeriodType, number> = { YEARLY: 1, QUARTERLY: 4, MONTHLY: 12 };
const MONTHS_PER_PERIOD: Record<PeriodType, number> = { YEARLY: 12, QUARTERLY: 3, MONTHLY: 1 };
const DAY_MS = 86_400_000;
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The first instant after a period (UTC): its end. */
export function periodEnd(year: number, periodType: PeriodType, periodUnit: number): Date {
  return new Date(Date.UTC(year, periodUnit * MONTHS_PER_PERIOD[periodType], 1));
}

/** When a period's data is due: `dueDays` days after its end (UTC); null without a due date. */
export function dueAt(year: number, periodType: PeriodType, periodUnit: number, dueDays: number | null) {
  if (dueDays === null) return null;
  return new Date(periodEnd(year, periodType, periodUnit).getTime() + dueDays * DAY_MS);
}

/** A period as people name it: "March 2024", "Q2 2024", "2024". */
export function periodLabel(year: number, periodType: PeriodType, periodUnit: number): string {
  if (periodType === 'MONTHLY') return `${MONTH_NAMES[periodUnit - 1]} ${year}`;
  if (periodType === 'QUARTERLY') return `Q${periodUnit} ${year}`;
  return `${year}`;
}
