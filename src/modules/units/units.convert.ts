/** The fields of a unit that conversion needs. */
export interface UnitFactor {
  id: string;
  symbol: string;
  dimension: string;
  factor_to_base: number;
}

export class UnitMismatchError extends Error {
  constructor(
    readonly from: UnitFactor,
    readonly to: UnitFactor,
  ) {
    super(`cannot convert ${from.symbol} (${from.dimension}) into ${to.symbol} (${to.dimension})`);
  }
}

/**
 * Converts `value` from one unit into another of the same dimension: the one conversion
 * function every module uses. Rounded to 12 significant digits so that 1 MWh is 1000 kWh,
 * not 999.9999999999999.
 */
export function convertValue(value: number, from: UnitFactor, to: UnitFactor): number {
  if (from.id === to.id) return value;
  if (from.dimension !== to.dimension) throw new UnitMismatchError(from, to);
  const converted = (value * from.factor_to_base) / to.factor_to_base;
  return Number(converted.toPrecision(12));
}
