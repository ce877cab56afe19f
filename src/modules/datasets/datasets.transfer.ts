import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { notFound } from '../../domain/errors.ts';
import { units as unitCatalog } from '../units/index.ts';
import {
  type ItemFields,
  type ItemRow,
  datasetItemsRepository as items,
} from './dataset-items.repository.ts';
import { currentYear, keyProblem, sameJson, type UnitIndex, usableUnits } from './dataset-items.rules.ts';
import {
  exportFileName,
  type ImportColumns,
  isBlankRecord,
  itemsToCsv,
  metadataCell,
  parseCsv,
  parseNumber,
  readHeader,
  readTags,
} from './datasets.csv.ts';
import { presentItem } from './datasets.present.ts';
import { datasetsRepository } from './datasets.repository.ts';
import { MAX_YEAR, MIN_YEAR } from './datasets.schemas.ts';
import { readableDataset, writableDataset } from './datasets.service.ts';

const datasetNotFound = () => notFound('Dataset');

/**
 * The dataset's items as CSV, every field of each item (see `itemsToCsv`), and the dataset's
 * source and version beside it.
 */
export async function exportDataset(tx: Tx, caller: Caller, id: string) {
  const dataset = await readableDataset(tx, caller, id, datasetNotFound);
  const rows = await items.listForDataset(tx, caller.organizationId, dataset);
  // Items name catalog units, or (in the organization's own datasets) its own units.
  const units = new Map((await unitCatalog.list(tx, caller.organizationId)).map((u) => [u.id, u.symbol]));
  const exported = rows.map((row) => {
    const symbol = row.input_unit_id === null ? null : units.get(row.input_unit_id);
    // Never write an item without its input unit: the import would read it as "per nothing".
    if (symbol === undefined)
      throw new Error(`dataset item ${row.id}: input unit ${row.input_unit_id} not found`);
    return { ...row, inputUnitSymbol: symbol };
  });
  return {
    csvContent: itemsToCsv(exported),
    filename: exportFileName(dataset.name),
    itemCount: rows.length,
    dataSource: dataset.data_source,
    version: dataset.version,
  };
}

const slot = (key: string, year: number) => `${year}\u0000${key}`;

/** One data row read against the header; `problems` is empty when the row is usable. */
function readRow(
  cells: string[],
  cols: ImportColumns,
  units: UnitIndex,
  existing: Map<string, ItemRow>,
  now: Date,
): { problems: string[]; fields?: ItemFields; match?: ItemRow } {
  if (cells.length !== cols.width) {
    return { problems: [`has ${cells.length} fields where the header has ${cols.width}`] };
  }
  const problems: string[] = [];
  const label = cells[cols.label]!;
  if (label.trim() === '') problems.push('label is empty');
  else if (label.length > 500) problems.push('label is longer than 500 characters');
  const key = cells[cols.key]!;
  const keyIssue = keyProblem(key);
  if (keyIssue) problems.push(keyIssue);
  const value = parseNumber(cells[cols.value]!);
  if (value === null) problems.push(`value "${cells[cols.value]}" is not a number`);

  let year = currentYear(now);
  const yearText = cols.year === undefined ? '' : cells[cols.year]!.trim();
  if (yearText !== '') {
    year = /^\d+$/.test(yearText) ? Number(yearText) : Number.NaN;
    if (!(year >= MIN_YEAR && year <= MAX_YEAR))
      problems.push(`year "${yearText}" is not a year from ${MIN_YEAR} to ${MAX_YEAR}`);
  }
  const symbolOf = (column: number | undefined, what: string) => {
    if (column === undefined) return undefined;
    const symbol = cells[column]!.trim();
    if (symbol === '') return null;
    const unit = units.bySymbol.get(symbol);
    if (!unit) problems.push(`${what} "${symbol}" is not the symbol of a unit you can use here`);
    return unit ?? null;
  };
  const unit = symbolOf(cols.unit, 'unit');
  const inputUnit = symbolOf(cols.inputUnit, 'inputUnit');
  // Texts: an empty cell is "none" (null); a column the file does not have keeps the stored value.
  const textOf = (column: number | undefined, what: string, max: number) => {
    if (column === undefined) return undefined;
    const text = cells[column]!;
    if (text.length > max) problems.push(`${what} is longer than ${max} characters`);
    return text === '' ? null : text;
  };
  const description = textOf(cols.description, 'description', 5000);
  const link = textOf(cols.link, 'link', 2000);
  let tags: string[] | undefined;
  if (cols.tags !== undefined) {
    const read = readTags(cells[cols.tags]!);
    if (typeof read === 'string') problems.push(read);
    else tags = read;
  }
  const jsonCells = new Map<string, unknown>();
  for (const [field, { column, json, name }] of cols.metadata) {
    if (!json || cells[column] === '') continue;
    try {
      jsonCells.set(field, JSON.parse(cells[column]!));
    } catch {
      problems.push(`${name} "${cells[column]!.slice(0, 50)}" is not JSON`);
    }
  }
  if (problems.length > 0) return { problems };

  const match = existing.get(slot(key, year));
  // A Map, so that any field name (even "__proto__") is plain data.
  const metadata = new Map(Object.entries(match?.metadata ?? {}));
  for (const [field, { column, json }] of cols.metadata) {
    const cell = cells[column]!;
    const before = metadata.get(field);
    if (cell === '') metadata.delete(field);
    else if (json) metadata.set(field, jsonCells.get(field));
    // CSV has no types: a cell that reads exactly as the stored number, boolean or object keeps it.
    else if (!(before !== undefined && typeof before !== 'string' && metadataCell(before) === cell)) {
      metadata.set(field, cell);
    }
  }
  const fields: ItemFields = {
    name: label,
    key,
    value: value!,
    unit: unit === undefined ? (match?.unit ?? null) : (unit?.symbol ?? null),
    year,
    description: description === undefined ? (match?.description ?? null) : description,
    link: link === undefined ? (match?.link ?? null) : link,
    metadata: Object.fromEntries(metadata),
    tags: tags ?? match?.tags ?? [],
    input_unit_id: inputUnit === undefined ? (match?.input_unit_id ?? null) : (inputUnit?.id ?? null),
  };
  return { problems, fields, ...(match ? { match } : {}) };
}

/**
 * Imports CSV into a dataset: each row creates or updates the item of its (key, year). Rows
 * with problems are skipped and reported as `Row N: …`; the rest is written with a few
 * multi-row statements, and each change lands in the items' history.
 */
export async function importDataset(tx: Tx, caller: Caller, id: string, csvContent: string, now: Date) {
  const dataset = await writableDataset(tx, caller, id, datasetNotFound);
  const records = parseCsv(csvContent);
  const cols = readHeader(records[0]);
  const units = await usableUnits(tx, caller.organizationId, dataset);
  const stored = await items.listForDataset(tx, caller.organizationId, dataset);
  const existing = new Map(stored.map((r) => [slot(r.key, r.year), r]));

  const errors: string[] = [];
  const creates: ItemFields[] = [];
  const updates: Array<{ before: ItemRow; fields: ItemFields }> = [];
  const rowOfSlot = new Map<string, number>();
  let unchanged = 0;
  records.slice(1).forEach((cells, index) => {
    const n = index + 1;
    if (isBlankRecord(cells)) return;
    const { problems, fields, match } = readRow(cells, cols, units, existing, now);
    if (fields) {
      const first = rowOfSlot.get(slot(fields.key, fields.year));
      if (first !== undefined)
        problems.push(`key "${fields.key}" for ${fields.year} is already on row ${first}`);
      else rowOfSlot.set(slot(fields.key, fields.year), n);
    }
    if (problems.length > 0 || !fields) {
      errors.push(`Row ${n}: ${problems.join('; ')}`);
    } else if (!match) {
      creates.push(fields);
    } else if (sameJson(presentItem({ ...match, ...fields }), presentItem(match))) {
      unchanged += 1;
    } else {
      updates.push({ before: match, fields });
    }
  });

  const org = caller.organizationId;
  await items.insertMany(tx, org, dataset.id, caller.userId, creates);
  await items.updateMany(
    tx,
    org,
    caller.userId,
    updates.map((u) => ({ ...u.fields, id: u.before.id })),
  );
  if (creates.length + updates.length > 0) await datasetsRepository.touch(tx, org, dataset.id);
  return { created: creates.length, updated: updates.length, unchanged, failed: errors.length, errors };
}
