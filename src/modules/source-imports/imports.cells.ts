import type { PeriodType } from '../../db/schema/index.ts';
import type { IssueCode, IssueParams } from '../../domain/issue-codes.ts';
import { isExactNumber, TOO_LARGE } from '../../lib/numbers.ts';
import type { ElementInfo } from '../values/index.ts';
import type { SheetMapping } from './adapters.schemas.ts';
import type { Catalog, FormInfo } from './imports.catalog.ts';
import type { SheetCell, SheetRow } from './imports.schemas.ts';

/** Reading a row's cells: numbers, text, the year and period, a value as its element expects it. */

export const PERIODS: Record<PeriodType, number> = { YEARLY: 1, QUARTERLY: 4, MONTHLY: 12 };
export const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export const isEmpty = (cell: SheetCell | undefined) =>
  cell === undefined || cell === null || (typeof cell === 'string' && cell.trim() === '');

/** The columns a mapping entry reads. */
export function mappedColumns(m: SheetMapping): string[] {
  const out: string[] = [];
  if (m.site) out.push(m.site.column);
  if (m.year) out.push(m.year.column);
  if (m.period) out.push('column' in m.period ? m.period.column : m.period.dateColumn);
  if (m.element && 'column' in m.element) out.push(m.element.column);
  if (m.value) out.push(m.value.column);
  if (m.unit) out.push(m.unit.column);
  for (const input of Object.values(m.inputs ?? {})) out.push(input.column);
  return out;
}

/** The mapping entry for a sheet: the one naming it, else the `*` one. */
export function mappingFor(sheets: SheetMapping[], name: string): number {
  const exact = sheets.findIndex((s) => s.sheet === name);
  return exact >= 0 ? exact : sheets.findIndex((s) => s.sheet === '*');
}

export class RowFailure extends Error {
  constructor(
    message: string,
    readonly column?: string,
    /** The documented code and params of the row's issue (decision 239). */
    readonly code?: IssueCode,
    readonly params?: IssueParams,
  ) {
    super(message);
  }
}

export const fail = (message: string, column?: string, code?: IssueCode, params?: IssueParams): never => {
  throw new RowFailure(message, column, code, params);
};

/** What a number cell is, for the issue's params: `what` and, for an activity input, its name. */
const whatOf = (what: string): IssueParams => {
  const input = /^The input (.+)$/.exec(what)?.[1];
  return input ? { what: 'input', input } : { what: what.replace(/^The /, '') };
};

export const show = (cell: SheetCell | undefined) => JSON.stringify(cell ?? null);

/** A number from a number cell or a plain numeric string ("1234.5"; "1 234,5" is not one). */
export function numberOf(cell: SheetCell | undefined, column: string, what: string): number {
  let n: number | undefined;
  if (typeof cell === 'number' && Number.isFinite(cell)) n = cell;
  else if (typeof cell === 'string' && NUMERIC.test(cell.trim())) n = Number(cell.trim());
  const params = { ...whatOf(what), cell: show(cell) };
  if (n === undefined)
    return fail(
      `${what} ${show(cell)} is not a number (write it like 1234.5)`,
      column,
      'import.notNumber',
      params,
    );
  // Beyond 2^53 − 1 a number is no longer exact to the unit: refused like a submitted one.
  if (!isExactNumber(n)) return fail(`${what} ${show(cell)} ${TOO_LARGE}`, column, 'import.tooLarge', params);
  return n;
}

export function integerOf(cell: SheetCell | undefined, column: string, what: string): number {
  const n = numberOf(cell, column, what);
  if (!Number.isInteger(n))
    fail(`${what} ${show(cell)} is not a whole number`, column, 'import.notWhole', {
      ...whatOf(what),
      cell: show(cell),
    });
  return n;
}

export function textOf(cell: SheetCell | undefined): string {
  return typeof cell === 'string' ? cell.trim() : String(cell);
}

/** Year and period of a row, by the form's period type. */
export function resolvePeriod(m: SheetMapping, row: SheetRow, catalog: Catalog, form: FormInfo) {
  let date: Date | undefined;
  if (m.period && 'dateColumn' in m.period) {
    const column = m.period.dateColumn;
    const cell = row[column];
    if (isEmpty(cell)) fail('The date cell is empty', column, 'import.cellEmpty', { cell: 'date' });
    const text = textOf(cell);
    date = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? new Date(text) : undefined;
    if (!date || Number.isNaN(date.getTime())) {
      return fail(`${show(cell)} is not an ISO 8601 date (such as 2025-04-30)`, column, 'import.notDate', {
        cell: show(cell),
      });
    }
  }
  let year: number;
  if (m.year) {
    const column = m.year.column;
    if (isEmpty(row[column])) fail('The year cell is empty', column, 'import.cellEmpty', { cell: 'year' });
    year = integerOf(row[column], column, 'The year');
    if (year < 1900 || year > 2200)
      fail(`The year ${year} is outside 1900..2200`, column, 'import.yearOutOfRange', {
        year,
        firstYear: 1900,
        lastYear: 2200,
      });
    if (date && date.getUTCFullYear() !== year) {
      fail(
        `The date is in ${date.getUTCFullYear()} (UTC), not in ${year}`,
        (m.period as { dateColumn: string }).dateColumn,
        'import.dateYearMismatch',
        { dateYear: date.getUTCFullYear(), year },
      );
    }
  } else if (catalog.context.year !== undefined) {
    year = catalog.context.year;
  } else if (date) {
    year = date.getUTCFullYear();
  } else {
    return fail(
      'No year: the mapping has no year column and the request no context.year',
      undefined,
      'import.yearMissing',
    );
  }
  const last = PERIODS[form.period_type];
  let periodUnit = 1;
  if (date) {
    const month = date.getUTCMonth() + 1;
    periodUnit = last === 12 ? month : last === 4 ? Math.ceil(month / 3) : 1;
  } else if (m.period && 'column' in m.period) {
    const column = m.period.column;
    if (isEmpty(row[column]))
      fail('The period cell is empty', column, 'import.cellEmpty', { cell: 'period' });
    periodUnit = integerOf(row[column], column, 'The period');
    if (periodUnit < 1 || periodUnit > last) {
      fail(
        `The period ${periodUnit} is outside ${last === 1 ? '1' : `1..${last}`} for a ${form.period_type} form`,
        column,
        'import.periodOutOfRange',
        { periodUnit, max: last, periodType: form.period_type },
      );
    }
  }
  return { year, periodUnit };
}

/** A cell as the element's type expects it: numbers for NUMBER, text for text-like types. */
export function valueFor(element: ElementInfo, cell: SheetCell, column: string): unknown {
  switch (element.type) {
    case 'NUMBER':
      return numberOf(cell, column, 'The value');
    case 'BOOLEAN':
      if (typeof cell === 'string' && /^(true|false)$/i.test(cell.trim()))
        return cell.trim().toLowerCase() === 'true';
      return cell;
    case 'TEXT':
    case 'SELECT':
    case 'DATE':
    case 'FILE':
      return typeof cell === 'number' ? String(cell) : cell;
    default:
      return cell;
  }
}
