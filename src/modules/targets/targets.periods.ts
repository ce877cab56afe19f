import type { PeriodGrouping } from '../../domain/dashboards.ts';
import { formatNumber } from '../indicators/index.ts';
import type { TargetEntry } from './targets.schemas.ts';

/** Periods of target entries and series (`2026`, `2026-Q1`, `2026-03`): labels, containment, paths. */

const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
export const RANK: Record<PeriodGrouping, number> = { YEARLY: 0, QUARTERLY: 1, MONTHLY: 2 };
/** How many periods of a grouping one period of a coarser one holds. */
export const PER_YEAR: Record<PeriodGrouping, number> = { YEARLY: 1, QUARTERLY: 4, MONTHLY: 12 };

/** `2026` -> `2026`, `2026-Q1` -> `Q1 2026`, `2026-03` -> `Mar 2026`. */
export function seriesPeriodLabel(period: string): string {
  const quarter = /^(\d{4})-Q([1-4])$/.exec(period);
  if (quarter) return `Q${quarter[2]} ${quarter[1]}`;
  const month = /^(\d{4})-(\d{2})$/.exec(period);
  if (month) return `${MONTH_NAMES[Number(month[2]) - 1]} ${month[1]}`;
  return period;
}

export function groupingOf(e: TargetEntry): PeriodGrouping {
  return e.month !== null ? 'MONTHLY' : e.quarter !== null ? 'QUARTERLY' : 'YEARLY';
}

export function entryPeriodOf(e: TargetEntry): string {
  if (e.month !== null) return `${e.year}-${String(e.month).padStart(2, '0')}`;
  if (e.quarter !== null) return `${e.year}-Q${e.quarter}`;
  return String(e.year);
}

/** The coarser period a period falls in: `2026-03` in `2026-Q1` and `2026`. */
export function containing(period: string, grouping: PeriodGrouping): string {
  const year = period.slice(0, 4);
  if (grouping === 'YEARLY') return year;
  const month = /^\d{4}-(\d{2})$/.exec(period);
  if (month) return `${year}-Q${Math.floor((Number(month[1]) - 1) / 3) + 1}`;
  return period;
}

export function formatValue(value: number, unit: string | null, decimals: number | undefined): string {
  if (decimals === undefined) return formatNumber(value, unit);
  const text = new Intl.NumberFormat('en-US', {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  }).format(value);
  return unit ? `${text} ${unit}` : text;
}

/** Points of a piecewise-linear path through the anchors (sorted by year), for the given years. */
export function linearPath(
  anchors: Array<{ year: number; value: number }>,
  years: number[],
): Map<number, number> {
  const out = new Map<number, number>();
  for (const year of years) {
    const exact = anchors.find((a) => a.year === year);
    if (exact) {
      out.set(year, exact.value);
      continue;
    }
    for (let i = 0; i + 1 < anchors.length; i++) {
      const a = anchors[i]!;
      const b = anchors[i + 1]!;
      if (a.year < year && year < b.year) {
        out.set(year, a.value + ((b.value - a.value) * (year - a.year)) / (b.year - a.year));
        break;
      }
    }
  }
  return out;
}
