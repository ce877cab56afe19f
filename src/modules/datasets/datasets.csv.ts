import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { badRequest, invalidField } from '../../domain/errors.ts';
import { neutralizeCell, parseNumber, restoreCell } from '../../lib/tabular/formula.ts';
import type { ItemRow } from './dataset-items.repository.ts';

export { neutralizeCell, parseNumber, restoreCell };

/** The fixed columns of a dataset CSV, in export order; metadata columns follow. */
export const BASE_COLUMNS = ['label', 'key', 'value', 'unit', 'year'] as const;
/** The symbol of the item's input unit (the unit the coefficient applies per). */
export const INPUT_UNIT_COLUMN = 'inputUnit';
/** Written after the base columns (older files without them stay importable). */
export const ITEM_COLUMNS = [INPUT_UNIT_COLUMN, 'description', 'link', 'tags'] as const;
/** A metadata field whose values are all non-empty text: the cell is the text. */
export const METADATA_PREFIX = 'metadata.';
/** A metadata field with other values (numbers, booleans, objects, empty text): each cell is JSON. */
export const METADATA_JSON_PREFIX = 'metadataJson.';

/** How a metadata value is written in a text cell: text as is, numbers and booleans as text, the rest as JSON. */
export function metadataCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A number as the shortest text that reads back as the same double (-0 included). */
const numberCell = (value: number) => (Object.is(value, -0) ? '-0' : String(value));

const TAG_SEPARATOR = ';';

/**
 * Tags in one cell: `scope2;fuel` when that reads back exactly (no tag holds the separator,
 * starts with `[` or has surrounding spaces), else a JSON array. Empty: no tags.
 */
export function tagsCell(tags: string[]): string {
  if (tags.length === 0) return '';
  const plain = tags.every((t) => !t.includes(TAG_SEPARATOR) && t.trim() === t && t !== '');
  return plain && !tags[0]!.startsWith('[') ? tags.join(TAG_SEPARATOR) : JSON.stringify(tags);
}

/** The inverse of `tagsCell` (also what people write by hand: `a; b`); a string naming the problem on error. */
export function readTags(cell: string): string[] | string {
  let tags: unknown;
  if (cell.trimStart().startsWith('[')) {
    try {
      tags = JSON.parse(cell);
    } catch {
      return 'tags is neither a JSON array of texts nor a list separated by ";"';
    }
    if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string'))
      return 'tags is neither a JSON array of texts nor a list separated by ";"';
  } else {
    tags = cell
      .split(TAG_SEPARATOR)
      .map((t) => t.trim())
      .filter((t) => t !== '');
  }
  const list = [...new Set(tags as string[])];
  if (list.length > 100) return 'tags has more than 100 tags';
  if (list.some((t) => t.length === 0 || t.length > 100)) return 'tags must each be 1 to 100 characters';
  return list;
}

/** The items of a CSV export: what `itemsToCsv` needs beyond the stored row. */
export type ExportedItem = ItemRow & { inputUnitSymbol: string | null };

/**
 * The CSV of a dataset's items: base columns, input unit, description, link, tags, then one
 * column per metadata field in sorted order (`metadataJson.<field>` where a value is not
 * non-empty text, so that import gives back the same JSON value).
 */
export function itemsToCsv(items: ExportedItem[]): string {
  const fields = [...new Set(items.flatMap((i) => Object.keys(i.metadata)))].sort();
  const json = new Set(
    fields.filter((f) =>
      items.some(
        (i) => Object.hasOwn(i.metadata, f) && (typeof i.metadata[f] !== 'string' || i.metadata[f] === ''),
      ),
    ),
  );
  const header = [
    ...BASE_COLUMNS,
    ...ITEM_COLUMNS,
    ...fields.map((f) => (json.has(f) ? METADATA_JSON_PREFIX : METADATA_PREFIX) + f),
  ];
  const rows = items.map((i) => [
    i.name,
    i.key,
    numberCell(i.value),
    i.unit ?? '',
    String(i.year),
    i.inputUnitSymbol ?? '',
    i.description ?? '',
    i.link ?? '',
    tagsCell(i.tags),
    ...fields.map((f) => {
      if (!Object.hasOwn(i.metadata, f)) return '';
      return json.has(f) ? JSON.stringify(i.metadata[f]) : metadataCell(i.metadata[f]);
    }),
  ]);
  return stringify([header, ...rows].map((row) => row.map(neutralizeCell)));
}

/** A file name for a dataset's export. */
export function exportFileName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '') // accents: é -> e
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return `${slug || 'dataset'}.csv`;
}

/** Where each column of an import is, by the header row. */
export interface ImportColumns {
  label: number;
  key: number;
  value: number;
  unit: number | undefined;
  year: number | undefined;
  inputUnit: number | undefined;
  description: number | undefined;
  link: number | undefined;
  tags: number | undefined;
  /** metadata field name -> its column and whether the cells are JSON */
  metadata: Map<string, { column: number; json: boolean; name: string }>;
  width: number;
}

/** A record with nothing but blanks in it. */
export const isBlankRecord = (cells: string[]) => cells.every((cell) => cell.trim() === '');

/**
 * Parses CSV text into records of strings; a malformed file is a 400 naming csvContent. Blank
 * lines stay in as records (the import skips them) so that `Row N` counts the same way as in
 * the site import: the N-th record after the header.
 */
export function parseCsv(text: string): string[][] {
  try {
    const records = parse(text, { bom: true, relax_column_count: true }) as string[][];
    return records.map((record) => record.map(restoreCell));
  } catch (error) {
    throw invalidField('csvContent', `csvContent is not valid CSV: ${(error as Error).message}`);
  }
}

/** Reads the header row: required label, key and value; no unknown or repeated columns. */
export function readHeader(header: string[] | undefined): ImportColumns {
  if (!header) throw invalidField('csvContent', 'csvContent is empty: expected a header row');
  const at = new Map<string, number>();
  const problems: string[] = [];
  const metadata: ImportColumns['metadata'] = new Map();
  const seen = new Set<string>();
  const fixed: readonly string[] = [...BASE_COLUMNS, ...ITEM_COLUMNS];
  header.forEach((raw, index) => {
    // Fixed names are matched without surrounding spaces; metadata field names are kept as written.
    const prefix = [METADATA_PREFIX, METADATA_JSON_PREFIX].find((p) => raw.trimStart().startsWith(p));
    const name = prefix ? raw.trimStart() : raw.trim();
    const field = prefix ? name.slice(prefix.length) : '';
    if (seen.has(name)) {
      problems.push(`column "${name}" appears twice`);
    } else if (prefix && field.length > 0) {
      if (metadata.has(field)) problems.push(`metadata field "${field}" has two columns`);
      else metadata.set(field, { column: index, json: prefix === METADATA_JSON_PREFIX, name });
    } else if (fixed.includes(name)) {
      at.set(name, index);
    } else {
      problems.push(`unknown column "${name}"`);
    }
    seen.add(name);
  });
  for (const required of ['label', 'key', 'value']) {
    if (!at.has(required)) problems.push(`column "${required}" is required`);
  }
  if (problems.length > 0) {
    throw badRequest(
      'The CSV header is not usable',
      problems.map((message) => ({ message, path: 'csvContent' })),
    );
  }
  return {
    label: at.get('label')!,
    key: at.get('key')!,
    value: at.get('value')!,
    unit: at.get('unit'),
    year: at.get('year'),
    inputUnit: at.get(INPUT_UNIT_COLUMN),
    description: at.get('description'),
    link: at.get('link'),
    tags: at.get('tags'),
    metadata,
    width: header.length,
  };
}
