import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { type AppError, authorize, notFound } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { datasetItemsRepository as items } from './dataset-items.repository.ts';
import { changeDenied, datasetPolicy } from './datasets.policy.ts';
import { presentDataset } from './datasets.present.ts';
import { type DatasetFields, datasetsRepository as repo } from './datasets.repository.ts';

/** A dataset the caller can read, or the error given (404 for a path id, 400 for a body id). */
export async function readableDataset(tx: Tx, caller: Caller, id: string, missing: () => AppError) {
  const row = isUuid(id) ? await repo.find(tx, caller.organizationId, id) : undefined;
  if (!row) throw missing();
  return row;
}

/**
 * A dataset the caller may change, locked until the transaction ends: 403 for the built-in
 * library, and for a common dataset unless the caller is a platform admin of its organization.
 */
export async function writableDataset(tx: Tx, caller: Caller, id: string, missing: () => AppError) {
  const row = await readableDataset(tx, caller, id, missing);
  authorize(datasetPolicy.canChange(caller, row), changeDenied(row));
  await repo.lock(tx, caller.organizationId, row.id);
  // Read again under the lock: a change committed meanwhile is the base of this one.
  return readableDataset(tx, caller, row.id, missing);
}

const datasetNotFound = () => notFound('Dataset');

export async function listDatasets(tx: Tx, caller: Caller) {
  return (await repo.list(tx, caller.organizationId)).map((row) => presentDataset(row, caller));
}

export async function getDataset(tx: Tx, caller: Caller, id: string) {
  return presentDataset(await readableDataset(tx, caller, id, datasetNotFound), caller);
}

export async function createDataset(
  tx: Tx,
  caller: Caller,
  input: {
    name: string;
    description?: string | null;
    dataSource?: string | null;
    version?: string | null;
    isCommon?: boolean;
  },
) {
  const isCommon = input.isCommon ?? false;
  authorize(
    !isCommon || datasetPolicy.canShare(caller),
    'Only platform administrators can create common datasets',
  );
  const { id } = await repo.insert(tx, caller.organizationId, {
    name: input.name,
    description: input.description ?? null,
    dataSource: input.dataSource ?? null,
    version: input.version ?? null,
    isCommon,
  });
  return getDataset(tx, caller, id);
}

export async function updateDataset(
  tx: Tx,
  caller: Caller,
  id: string,
  changes: Partial<DatasetFields> & { name?: string; isCommon?: boolean },
) {
  const row = await writableDataset(tx, caller, id, datasetNotFound);
  if (changes.isCommon !== undefined && changes.isCommon !== row.is_common) {
    authorize(datasetPolicy.canShare(caller), 'Only platform administrators can share or unshare datasets');
  }
  await repo.update(tx, caller.organizationId, row.id, changes);
  return getDataset(tx, caller, row.id);
}

/** Deletes a dataset with its items; the items' deletion is kept in their history. */
export async function removeDataset(tx: Tx, caller: Caller, id: string) {
  const row = await writableDataset(tx, caller, id, datasetNotFound);
  await items.appendDatasetDeletion(tx, caller.organizationId, row.id, caller.userId);
  await repo.remove(tx, caller.organizationId, row.id);
  return presentDataset(row, caller);
}
