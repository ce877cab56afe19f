import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { authorize, badRequest, type Issue, invalidField, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { isUuid } from '../../lib/ids.ts';
import { type ItemFields, type ItemRow, datasetItemsRepository as repo } from './dataset-items.repository.ts';
import { currentYear, keyProblem, sameJson, usableUnits } from './dataset-items.rules.ts';
import { changeDenied, type DatasetOwnership, datasetPolicy } from './datasets.policy.ts';
import { presentItem } from './datasets.present.ts';
import { datasetsRepository } from './datasets.repository.ts';
import { writableDataset } from './datasets.service.ts';

export interface ItemInput {
  name?: string;
  data?: { key: string; value: number; unit?: string | null };
  year?: number;
  description?: string | null;
  link?: string | null;
  metadata?: Record<string, unknown>;
  tags?: string[];
  inputUnitId?: string | null;
}

type Shown = ReturnType<typeof presentItem>;

const itemNotFound = () => notFound('Dataset item');

/** The stored fields after applying the fields sent (those not sent keep `base`). */
function merge(base: ItemFields, input: ItemInput): ItemFields {
  return {
    name: input.name ?? base.name,
    key: input.data?.key ?? base.key,
    value: input.data?.value ?? base.value,
    unit: input.data ? (input.data.unit ?? null) : base.unit,
    year: input.year ?? base.year,
    // An empty text is stored as none: a CSV export could not tell the two apart.
    description: input.description === undefined ? base.description : input.description || null,
    link: input.link === undefined ? base.link : input.link || null,
    metadata: input.metadata ?? base.metadata,
    tags: input.tags ? [...new Set(input.tags)] : base.tags,
    input_unit_id: input.inputUnitId === undefined ? base.input_unit_id : input.inputUnitId,
  };
}

/** Checks an item's fields against its dataset: key form, units, (key, year) unique. */
async function check(
  tx: Tx,
  caller: Caller,
  dataset: DatasetOwnership & { id: string },
  f: ItemFields,
  selfId?: string,
) {
  const issues: Issue[] = [];
  const problem = keyProblem(f.key);
  if (problem) issues.push({ path: 'data.key', message: `data.${problem}` });
  if (f.unit !== null || f.input_unit_id !== null) {
    const units = await usableUnits(tx, caller.organizationId, dataset);
    if (f.unit !== null && !units.bySymbol.has(f.unit)) {
      issues.push({
        path: 'data.unit',
        message: `data.unit "${f.unit}" is not the symbol of a unit you can use here`,
      });
    }
    if (f.input_unit_id !== null && !(isUuid(f.input_unit_id) && units.byId.has(f.input_unit_id))) {
      issues.push({ path: 'inputUnitId', message: 'inputUnitId does not name a unit you can use here' });
    }
  }
  if (!problem) {
    const clash = await repo.findByKeyYear(tx, caller.organizationId, dataset.id, f.key, f.year);
    if (clash && clash.id !== selfId) {
      issues.push({
        path: 'data.key',
        message: `data.key "${f.key}" already has an item for ${f.year} in this dataset`,
      });
    }
  }
  if (issues.length > 0) throw badRequest('Invalid input data', issues);
}

function change(
  caller: Caller,
  row: ItemRow,
  action: 'create' | 'update' | 'delete',
  before: unknown,
  after: unknown,
) {
  return {
    datasetId: row.dataset_id,
    itemId: row.id,
    action,
    source: 'api' as const,
    userId: caller.userId,
    before,
    after,
  };
}

export async function createItem(
  tx: Tx,
  caller: Caller,
  input: ItemInput & { datasetId: string },
  now: Date,
) {
  const dataset = await writableDataset(tx, caller, input.datasetId, () =>
    invalidField('datasetId', 'datasetId does not name a dataset of this organization'),
  );
  const blank: ItemFields = {
    name: '',
    key: '',
    value: 0,
    unit: null,
    year: currentYear(now),
    description: null,
    link: null,
    metadata: {},
    tags: [],
    input_unit_id: null,
  };
  const fields = merge(blank, input);
  await check(tx, caller, dataset, fields);
  const row = await repo.insert(tx, caller.organizationId, dataset.id, fields);
  const shown = presentItem(row);
  await repo.appendHistory(tx, caller.organizationId, [change(caller, row, 'create', null, shown)]);
  await datasetsRepository.touch(tx, caller.organizationId, dataset.id);
  return shown;
}

/** An item the caller may change (403 in the library, and in a common dataset unless a platform admin of its owner). */
async function writableItem(tx: Tx, caller: Caller, id: string) {
  const row = isUuid(id) ? await repo.find(tx, caller.organizationId, id) : undefined;
  if (!row) throw itemNotFound();
  authorize(datasetPolicy.canChange(caller, row), changeDenied(row));
  await datasetsRepository.lock(tx, caller.organizationId, row.dataset_id);
  // Read again under the lock: a change committed meanwhile must be the base of this one.
  const locked = await repo.find(tx, caller.organizationId, row.id, true);
  if (!locked) throw itemNotFound();
  return locked;
}

export async function getItem(tx: Tx, caller: Caller, id: string) {
  const row = isUuid(id) ? await repo.find(tx, caller.organizationId, id) : undefined;
  if (!row) throw itemNotFound();
  return presentItem(row);
}

export async function updateItem(tx: Tx, caller: Caller, id: string, input: ItemInput) {
  const row = await writableItem(tx, caller, id);
  const fields = merge(row, input);
  const before = presentItem(row);
  if (sameJson(presentItem({ ...row, ...fields }), before)) return before;
  await check(tx, caller, { ...row, id: row.dataset_id }, fields, row.id);
  const updated = await repo.update(tx, caller.organizationId, row.id, fields);
  const after = presentItem(updated);
  await repo.appendHistory(tx, caller.organizationId, [change(caller, updated, 'update', before, after)]);
  await datasetsRepository.touch(tx, caller.organizationId, row.dataset_id);
  return after;
}

export async function removeItem(tx: Tx, caller: Caller, id: string) {
  const row = await writableItem(tx, caller, id);
  await repo.remove(tx, caller.organizationId, row.id);
  const before = presentItem(row);
  await repo.appendHistory(tx, caller.organizationId, [change(caller, row, 'delete', before, null)]);
  await datasetsRepository.touch(tx, caller.organizationId, row.dataset_id);
  return before;
}

/** Every item of the organization's datasets and of common ones. */
export async function listItems(tx: Tx, caller: Caller) {
  const rows = await repo.list(tx, caller.organizationId);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    year: r.year,
    datasetId: r.dataset_id,
    datasetName: r.dataset_name,
    tags: r.tags,
    metadata: r.metadata,
    inputUnitId: r.input_unit_id,
    data: { key: r.key, value: Number(r.value), unit: r.unit },
  }));
}

/**
 * The change history of an item, also after the item was deleted; empty for an item never
 * changed through the API (the built-in library's); 404 when there is neither.
 */
export async function itemHistory(tx: Tx, caller: Caller, id: string) {
  const rows = isUuid(id) ? await repo.history(tx, caller.organizationId, id) : [];
  if (rows.length === 0) {
    if (isUuid(id) && (await repo.find(tx, caller.organizationId, id))) return [];
    throw itemNotFound();
  }
  return rows.map((h) => ({
    id: h.id,
    itemId: h.item_id,
    datasetId: h.dataset_id,
    action: h.action,
    source: h.source,
    userId: h.user_id,
    userName: h.user_name,
    userEmail: h.user_email,
    changedAt: iso(h.changed_at),
    before: h.before as Shown | null,
    after: h.after as Shown | null,
  }));
}
