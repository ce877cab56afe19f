import type { unitsRepository as repo } from './units.repository.ts';

export type UnitRow = Awaited<ReturnType<typeof repo.list>>[number];

export function presentUnit(row: UnitRow) {
  return {
    id: row.id,
    symbol: row.symbol,
    name: row.name,
    dimension: row.dimension,
    factorToBase: row.factor_to_base,
    organizationId: row.organization_id,
  };
}
