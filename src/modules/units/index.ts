/** The units module's front door: what other modules (and the composition root) may use. */
import { unitsRepository } from './units.repository.ts';

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
export { loadUnits } from './units.repository.ts';
export { unitsRoutes } from './units.routes.ts';

/** What other modules may read of units. */
export const units = {
  /** The catalog and the organization's own units, catalog first, then by dimension and size. */
  list: unitsRepository.list,
};
