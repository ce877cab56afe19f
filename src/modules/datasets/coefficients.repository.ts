import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';
import { isUuid } from '../../lib/ids.ts';

/** A coefficient as calculations use it. */
export interface DatasetCoefficient {
  value: number;
  /** Symbol of the unit the coefficient yields (kgCO2e in kgCO2e per kWh), or null. */
  unit: string | null;
  year: number;
  datasetItemId: string;
  datasetId: string;
  /** The unit the coefficient applies per (kWh in kgCO2e per kWh), or null. */
  inputUnitId: string | null;
}

interface CoefficientRow {
  id: string;
  dataset_id: string;
  value: number;
  unit: string | null;
  year: number;
  input_unit_id: string | null;
}

const toCoefficient = (r: CoefficientRow): DatasetCoefficient => ({
  value: r.value,
  unit: r.unit,
  year: r.year,
  datasetItemId: r.id,
  datasetId: r.dataset_id,
  inputUnitId: r.input_unit_id,
});

/**
 * The coefficient for `key`: from the organization's own datasets when one of them has the
 * key, else from the common datasets; within those, the latest year not after `year` (any year
 * when no year is given). `datasetId` limits the search to one dataset. Null when none fits.
 * Ties (the same key and year in two datasets of one kind) go to the most recently changed item.
 */
export async function lookupCoefficient(
  tx: Tx,
  organizationId: string,
  key: string,
  options: { datasetId?: string; year?: number } = {},
): Promise<DatasetCoefficient | null> {
  const { datasetId, year } = options;
  if (datasetId !== undefined && !isUuid(datasetId)) return null;
  const sameDataset = datasetId === undefined ? sql`` : sql`and i.dataset_id = ${datasetId}`;
  const upToYear = year === undefined ? sql`` : sql`and i.year <= ${year}`;
  const result = await sql<CoefficientRow>`
    select * from (
      (select i.id, i.dataset_id, i.value, i.unit, i.year, i.input_unit_id, i.updated_at, 0 as rank
         from dataset_items i
        where i.organization_id = ${organizationId} and i.key = ${key} ${sameDataset} ${upToYear}
        order by i.year desc, i.updated_at desc, i.id
        limit 1)
      union all
      (select i.id, i.dataset_id, i.value, i.unit, i.year, i.input_unit_id, i.updated_at, 1 as rank
         from dataset_items i
         join datasets d on d.id = i.dataset_id
        where d.is_common and d.organization_id is distinct from ${organizationId} and i.key = ${key} ${sameDataset} ${upToYear}
        order by i.year desc, i.updated_at desc, i.id
        limit 1)
    ) best
    order by rank
    limit 1`.execute(tx);
  const row = result.rows[0];
  return row ? toCoefficient(row) : null;
}

/** Coefficients by item id (indicator expressions name items), among items the organization can read. */
export async function coefficientsByIds(
  tx: Tx,
  organizationId: string,
  ids: string[],
): Promise<Map<string, DatasetCoefficient>> {
  const wanted = [...new Set(ids.filter(isUuid))];
  if (wanted.length === 0) return new Map();
  const rows = await tx
    .selectFrom('dataset_items as i')
    .innerJoin('datasets as d', 'd.id', 'i.dataset_id')
    .select(['i.id', 'i.dataset_id', 'i.value', 'i.unit', 'i.year', 'i.input_unit_id'])
    .where('i.id', 'in', wanted)
    .where((eb) => eb.or([eb('d.organization_id', '=', organizationId), eb('d.is_common', '=', true)]))
    .execute();
  return new Map(rows.map((r) => [r.id, toCoefficient(r)]));
}
