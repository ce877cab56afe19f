import { roundStored } from '../../lib/numbers.ts';

/** The fields of a unit that conversion needs. */
export interface UnitFactor {
  id: string;
  symbol: string;
  dimension: string;
  factor_to_base: number;
  /** The unit's name for people ("cubic metre"), where the loader read it. */
  name?: string;
}

export class UnitMismatchError extends Error {
  constructor(
    readonly from: UnitFactor,
    readonly to: UnitFactor,
  ) {
    super(`cannot convert ${from.symbol} (${from.dimension}) into ${to.symbol} (${to.dimension})`);
  }
}

/** A conversion whose result is too large (or small) for a number: 1e306 MWh in kWh. */
export class UnitOverflowError extends Error {
  constructor(
    readonly from: UnitFactor,
    readonly to: UnitFactor,
  ) {
    super(`converted from ${from.symbol} into ${to.symbol} it is out of the range of numbers`);
  }
}

/**
 * Converts `value` from one unit into another of the same dimension: the one conversion
 * function every module uses. Rounded as every computed number (`roundStored`, 15 significant
 * digits) so that 1 MWh is 1000 kWh, not 999.9999999999999; a result that is not a finite
 * number is a UnitOverflowError.
 */
export function convertValue(value: number, from: UnitFactor, to: UnitFactor): number {
  if (from.id === to.id) return value;
  if (from.dimension !== to.dimension) throw new UnitMismatchError(from, to);
  const converted = roundStored((value * from.factor_to_base) / to.factor_to_base);
  if (!Number.isFinite(converted)) throw new UnitOverflowError(from, to);
  return converted;
}
