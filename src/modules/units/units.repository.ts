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
