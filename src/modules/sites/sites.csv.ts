import { CsvError, parse } from 'csv-parse/sync';
import type { SiteAddress } from '../../db/schema/index.ts';
import { badRequest, type Issue } from '../../domain/errors.ts';
import { ADDRESS_FIELDS, type AddressField, SITE_LIMITS } from './sites.schemas.ts';

/** At most this many data rows per import (the same bound as source imports). */
export const MAX_IMPORT_ROWS = 10_000;

/** One data row of a site CSV, with its own problems (the ones visible without other rows). */
export interface CsvSiteRow {
  /** 1-based position among the data rows (header excluded; blank rows count but are skipped). */
  row: number;
  name: string;
  code: string | null;
  /** Code, name or id of the parent as written; '' for a top-level site. */
  parent: string;
  latitude: number | null;
  longitude: number | null;
  address: SiteAddress;
  metadata: Record<string, string>;
  problems: string[];
}

type Column =
  | { kind: 'name' | 'code' | 'parent' | 'latitude' | 'longitude' }
  | { kind: 'address'; field: AddressField }
  | { kind: 'metadata'; key: string }
  | { kind: 'ignored' };

const SIMPLE = new Set(['name', 'code', 'parent', 'latitude', 'longitude']);
const ADDRESS_BY_LOWER = new Map<string, AddressField>(ADDRESS_FIELDS.map((f) => [f.toLowerCase(), f]));
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Parses a site CSV (RFC 4180 quoting, embedded newlines, BOM, CRLF). A CSV that cannot be
 * read, or whose header is unusable, is a 400 for the whole request; problems of single
 * rows are returned with the row.
 */
export function parseSitesCsv(content: string): CsvSiteRow[] {
  let records: string[][];
  try {
    records = parse(content, { bom: true, relax_column_count: true });
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const message = `The CSV could not be read: ${error.message}`;
    throw badRequest(message, [{ path: 'csvContent', message }]);
  }
  const [header, ...data] = records;
  if (!header) throw headerError('The CSV is empty: it needs a header row with a name column');
  const columns = readHeader(header);
  const blank = (record: string[]) => record.every((cell) => cell.trim() === '');
  const rowCount = data.filter((r) => !blank(r)).length;
  if (rowCount > MAX_IMPORT_ROWS) {
    throw headerError(
      `The CSV has ${rowCount} data rows; at most ${MAX_IMPORT_ROWS} can be imported at once`,
    );
  }
  const rows: CsvSiteRow[] = [];
  data.forEach((record, index) => {
    if (!blank(record)) rows.push(readRow(record, index + 1, columns));
  });
  return rows;
}

function headerError(message: string, issues: Issue[] = [{ path: 'csvContent', message }]) {
  return badRequest(message, issues);
}

function readHeader(header: string[]): Column[] {
  const issues: Issue[] = [];
  const seen = new Map<string, string>();
  const columns = header.map((raw): Column => {
    const title = raw.trim();
    if (!title) return { kind: 'ignored' };
    const column = classify(title);
    if (!column) {
      issues.push({ path: 'csvContent', message: `Unknown column "${title}"` });
      return { kind: 'ignored' };
    }
    const id =
      column.kind === 'address' ? column.field : column.kind === 'metadata' ? `m:${column.key}` : column.kind;
    const first = seen.get(id);
    if (first !== undefined)
      issues.push({ path: 'csvContent', message: `Columns "${first}" and "${title}" are the same` });
    seen.set(id, title);
    return column;
  });
  if (!seen.has('name')) {
    const single = header.length === 1 && /[;\t]/.test(header[0] ?? '');
    const hint = single ? ' (columns must be separated by commas)' : '';
    issues.unshift({ path: 'csvContent', message: `The header has no name column${hint}` });
  }
  if (issues.length > 0) {
    const allowed =
      'Allowed columns: name, code, parent, latitude, longitude, line1, line2, city, postalCode, region, country (or address.<field>), metadata.<field>';
    throw headerError(`Invalid CSV header. ${allowed}`, issues);
  }
  return columns;
}

function classify(title: string): Column | null {
  const lower = title.toLowerCase();
  if (SIMPLE.has(lower)) return { kind: lower as 'name' };
  const field = ADDRESS_BY_LOWER.get(lower.startsWith('address.') ? lower.slice('address.'.length) : lower);
  if (field) return { kind: 'address', field };
  if (lower.startsWith('metadata.')) {
    const key = title.slice('metadata.'.length).trim();
    if (key) return { kind: 'metadata', key };
  }
  return null;
}

function readRow(record: string[], row: number, columns: Column[]): CsvSiteRow {
  const out: CsvSiteRow = {
    row,
    name: '',
    code: null,
    parent: '',
    latitude: null,
    longitude: null,
    address: {},
    metadata: {},
    problems: [],
  };
  const extra = record.slice(columns.length).filter((cell) => cell.trim() !== '').length;
  if (extra > 0) out.problems.push(`has ${record.length} cells but the header has ${columns.length} columns`);
  let latitude = '';
  let longitude = '';
  columns.forEach((column, i) => {
    const value = (record[i] ?? '').trim();
    if (!value) return;
    switch (column.kind) {
      case 'name':
        out.name = value;
        break;
      case 'code':
        out.code = value;
        break;
      case 'parent':
        out.parent = value;
        break;
      case 'latitude':
        latitude = value;
        break;
      case 'longitude':
        longitude = value;
        break;
      case 'address':
        out.address[column.field] = value;
        break;
      case 'metadata':
        out.metadata[column.key] = value;
        break;
    }
  });
  if (!out.name) out.problems.push('name is required');
  else if (out.name.length > SITE_LIMITS.name)
    out.problems.push(`name is longer than ${SITE_LIMITS.name} characters`);
  if (out.code && out.code.length > SITE_LIMITS.code) {
    out.problems.push(`code is longer than ${SITE_LIMITS.code} characters`);
  }
  for (const field of ADDRESS_FIELDS) {
    if ((out.address[field]?.length ?? 0) > SITE_LIMITS.addressField) {
      out.problems.push(`${field} is longer than ${SITE_LIMITS.addressField} characters`);
    }
  }
  out.latitude = coordinate('latitude', latitude, 90, out.problems);
  out.longitude = coordinate('longitude', longitude, 180, out.problems);
  return out;
}

function coordinate(field: string, text: string, bound: number, problems: string[]): number | null {
  if (!text) return null;
  const value = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value)) {
    problems.push(`${field} "${text}" is not a number`);
    return null;
  }
  if (value < -bound || value > bound) {
    problems.push(`${field} ${text} is outside -${bound}..${bound}`);
    return null;
  }
  return value;
}
