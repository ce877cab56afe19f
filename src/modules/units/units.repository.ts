import type { Tx } from '../../db/client.ts';
import { isUuid } from '../../lib/ids.ts';
import type { UnitFactor } from './units.convert.ts';

/** Units visible to the organization (the catalog and its own) with the given ids. */
export async function loadUnits(
  tx: Tx,
  organizationId: string,
  ids: string[],
): Promise<Map<string, UnitFactor>> {
  const wanted = [...new Set(ids.filter(isUuid))];
  if (wanted.length === 0) return new Map();
  const rows = await tx
    .selectFrom('units')
    .select(['id', 'symbol', 'dimension', 'factor_to_base'])
    .where('id', 'in', wanted)
    .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]))
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

const UNIT_COLUMNS = ['id', 'symbol', 'name', 'dimension', 'factor_to_base', 'organization_id'] as const;

/** Unit rows: the shared catalog (organization_id null) and each organization's own units. */
export const unitsRepository = {
  /** The catalog and the organization's own units, catalog first, then by dimension and size. */
  list(tx: Tx, organizationId: string) {
    return tx
      .selectFrom('units')
      .select(UNIT_COLUMNS)
      .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]))
      .orderBy((eb) => eb('organization_id', 'is not', null))
      .orderBy('dimension')
      .orderBy('factor_to_base')
      .orderBy('symbol')
      .execute();
  },

  /** Visible units (catalog or own) with the given symbol. */
  findBySymbol(tx: Tx, organizationId: string, symbol: string) {
    return tx
      .selectFrom('units')
      .select(UNIT_COLUMNS)
      .where('symbol', '=', symbol)
      .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]))
      .execute();
  },

  insert(
    tx: Tx,
    organizationId: string,
    unit: { symbol: string; name: string; dimension: string; factorToBase: number },
  ) {
    return tx
      .insertInto('units')
      .values({
        organization_id: organizationId,
        symbol: unit.symbol,
        name: unit.name,
        dimension: unit.dimension,
        factor_to_base: unit.factorToBase,
      })
      .returning(UNIT_COLUMNS)
      .executeTakeFirstOrThrow();
  },
};
