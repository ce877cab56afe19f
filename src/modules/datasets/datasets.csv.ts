import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { badRequest, invalidField } from '../../domain/errors.ts';
import type { ItemRow } from './dataset-items.repository.ts';

/** The fixed columns of a dataset CSV, in export order; `metadata.<field>` columns follow. */
export const BASE_COLUMNS = ['label', 'key', 'value', 'unit', 'year'] as const;
/** Accepted on import only: the symbol of the item's input unit. */
export const INPUT_UNIT_COLUMN = 'inputUnit';
export const METADATA_PREFIX = 'metadata.';

/** How a metadata value is written in a cell: text as is, numbers and booleans as text, the rest as JSON. */
export function metadataCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The CSV of a dataset's items: base columns, then metadata fields in sorted order. */
export function itemsToCsv(items: ItemRow[]): string {
  const fields = [...new Set(items.flatMap((i) => Object.keys(i.metadata)))].sort();
  const header = [...BASE_COLUMNS, ...fields.map((f) => METADATA_PREFIX + f)];
  const rows = items.map((i) => [
    i.name,
    i.key,
    String(i.value), // shortest text that reads back as the same number
    i.unit ?? '',
    String(i.year),
    ...fields.map((f) => metadataCell(i.metadata[f])),
  ]);
  return stringify([header, ...rows].map((row) => row.map(neutralizeCell)));
}

/** What a spreadsheet may read as the start of a formula (OWASP's list: =, +, -, @, tab, CR). */
const FORMULA_START = /^'*[=+\-@\t\r]/;
const ESCAPED_FORMULA = /^'+[=+\-@\t\r]/;

/**
 * CSV injection: a cell that a spreadsheet could run as a formula gets a leading `'` (plain
 * numbers such as `-5` are left alone). Cells that already start with `'`s before such a
 * character get one more, so that `restoreCell` undoes exactly this and the round trip is exact.
 */
export function neutralizeCell(cell: string): string {
  return FORMULA_START.test(cell) && parseNumber(cell) === null ? `'${cell}` : cell;
}

/** The inverse of `neutralizeCell`, applied to every cell of an import. */
export function restoreCell(cell: string): string {
  return ESCAPED_FORMULA.test(cell) ? cell.slice(1) : cell;
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

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A decimal number written as text (surrounding spaces allowed), or null. */
export function parseNumber(text: string): number | null {
  const t = text.trim();
  if (!NUMBER.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** Where each column of an import is, by the header row. */
export interface ImportColumns {
  label: number;
  key: number;
  value: number;
  unit: number | undefined;
  year: number | undefined;
  inputUnit: number | undefined;
  /** metadata field name -> column index */
  metadata: Map<string, number>;
  width: number;
}

/**
 * Parses CSV text into records of strings; a malformed file is a 400 naming csvContent. Blank
 * lines stay in as records (the import skips them) so that `Row N` counts the same way as in
 * the site import: the N-th record after the header.
 */
/** A record with nothing but blanks in it. */
export const isBlankRecord = (cells: string[]) => cells.every((cell) => cell.trim() === '');

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
  const metadata = new Map<string, number>();
  const seen = new Set<string>();
  header.forEach((raw, index) => {
    // Fixed names are matched without surrounding spaces; metadata field names are kept as written.
    const isMetadata = raw.trimStart().startsWith(METADATA_PREFIX);
    const name = isMetadata ? raw.trimStart() : raw.trim();
    if (seen.has(name)) {
      problems.push(`column "${name}" appears twice`);
    } else if (isMetadata && name.length > METADATA_PREFIX.length) {
      metadata.set(name.slice(METADATA_PREFIX.length), index);
    } else if ((BASE_COLUMNS as readonly string[]).includes(name) || name === INPUT_UNIT_COLUMN) {
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
    metadata,
    width: header.length,
  };
}
