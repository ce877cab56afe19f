import type { Caller } from '../../domain/caller.ts';
import { iso } from '../../domain/time.ts';
import type { ItemRow } from './dataset-items.repository.ts';
import { datasetPolicy } from './datasets.policy.ts';
import type { datasetsRepository as repo } from './datasets.repository.ts';

export type DatasetRow = NonNullable<Awaited<ReturnType<typeof repo.find>>>;

export function presentDataset(row: DatasetRow, caller: Caller) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    dataSource: row.data_source,
    version: row.version,
    isCommon: row.is_common,
    builtIn: row.organization_id === null,
    readOnly: !datasetPolicy.canChange(caller, row),
    licence: row.licence,
    link: row.link,
    supersededById: row.superseded_by,
    organizationId: row.organization_id,
    itemCount: row.item_count ?? 0,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** The item as every answer (and its history) shows it. */
export function presentItem(row: ItemRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    link: row.link,
    year: row.year,
    tags: row.tags,
    data: { key: row.key, value: row.value, unit: row.unit },
    metadata: row.metadata,
    inputUnitId: row.input_unit_id,
  };
}
