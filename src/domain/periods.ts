import type { PeriodType } from '../db/schema/index.ts';

/** Months in one period of each type. */
export const MONTHS_PER_PERIOD: Record<PeriodType, number> = { YEARLY: 12, QUARTERLY: 3, MONTHLY: 1 };

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

/** A period as people name it in the service's messages and e-mails: "March 2024", "Q2 2024", "2024". */
export function periodLabel(year: number, periodType: PeriodType, periodUnit: number): string {
  if (periodType === 'MONTHLY') return `${MONTH_NAMES[periodUnit - 1]} ${year}`;
  if (periodType === 'QUARTERLY') return `Q${periodUnit} ${year}`;
  return `${year}`;
}
