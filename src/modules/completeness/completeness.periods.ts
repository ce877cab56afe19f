import type { PeriodType } from '../../db/schema/index.ts';
import { MONTHS_PER_PERIOD } from '../../domain/periods.ts';

export { periodLabel } from '../../domain/periods.ts';

export const LAST_PERIOD: Record<PeriodType, number> = { YEARLY: 1, QUARTERLY: 4, MONTHLY: 12 };
const DAY_MS = 86_400_000;

/** The first instant after a period (UTC): its end. */
export function periodEnd(year: number, periodType: PeriodType, periodUnit: number): Date {
  return new Date(Date.UTC(year, periodUnit * MONTHS_PER_PERIOD[periodType], 1));
}

/** When a period's data is due: `dueDays` days after its end (UTC); null without a due date. */
export function dueAt(year: number, periodType: PeriodType, periodUnit: number, dueDays: number | null) {
  if (dueDays === null) return null;
  return new Date(periodEnd(year, periodType, periodUnit).getTime() + dueDays * DAY_MS);
}
