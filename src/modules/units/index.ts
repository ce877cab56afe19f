/** The units module's front door: what other modules (and the composition root) may use. */
export { convertValue, type UnitFactor, UnitMismatchError, UnitOverflowError } from './units.convert.ts';
export {
  describeDimension,
  divide,
  multiply,
  PURE_NUMBER,
  sameDimension,
  type Term,
  termOfUnit,
} from './units.dimensions.ts';
export { loadUnits, unitsRepository } from './units.repository.ts';
export { unitsRoutes } from './units.routes.ts';
