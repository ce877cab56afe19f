/** Significant digits kept of every number the service computes (conversions, calculations). */
export const STORED_DIGITS = 15;

/**
 * Rounds a computed number to 15 significant digits, the precision a double holds exactly in
 * decimal: float noise goes (600 × 0.035 = 21.000000000000004 -> 21; 1 MWh = 1000 kWh, not
 * 999.9999999999999) and the result still reads back as the same double. Non-finite numbers
 * are returned as they are: callers refuse them (they cannot be stored).
 */
export function roundStored(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  return Number(value.toPrecision(STORED_DIGITS));
}

/**
 * Whether a number is within ±(2^53 − 1), where every whole number is exact: beyond it, one
 * typed as 9007199254740993 arrives as 9007199254740992. Values past it are refused as input.
 */
export const isExactNumber = (value: number): boolean => Math.abs(value) <= Number.MAX_SAFE_INTEGER;

/** The end of the refusal of a number past ±(2^53 − 1). */
export const TOO_LARGE =
  'is beyond ±9007199254740991 (2^53 − 1), past which numbers lose precision: it is refused rather than stored rounded ' +
  '(a larger unit keeps such figures in range: tonnes rather than grams, MWh rather than Wh)';
