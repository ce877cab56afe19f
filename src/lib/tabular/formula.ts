/**
 * Spreadsheet safety of text cells (decision 156), shared by the dataset CSVs and the exports:
 * what a spreadsheet could run as a formula, and plain decimal numbers.
 */

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A decimal number written as text (surrounding spaces allowed), or null. */
export function parseNumber(text: string): number | null {
  const t = text.trim();
  if (!NUMBER.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** What a spreadsheet may read as the start of a formula (OWASP's list: =, +, -, @; tab and CR below). */
const FORMULA_CHARACTERS = new Set(['=', '+', '-', '@']);
const LEADING_QUOTES = /^'+/;
const LEADING_SPACE = /^\s+/u;

/**
 * Whether a spreadsheet could run the cell (after any leading `'`s) as a formula: it starts with
 * a tab or CR (as OWASP lists them), or its first character once leading white space (spaces,
 * line breaks, tabs, wide spaces) is trimmed and it is NFKC-normalised is `=`, `+`, `-` or `@`.
 * Trimmed, because an import that trims spaces (LibreOffice's option) reads ` =1+4` as
 * `=1+4`; normalised, because a full-width `＝1+5` (or `﹦`, `＋`, `－`, `＠`) may be read as
 * its plain form.
 */
function startsLikeFormula(cell: string): boolean {
  const rest = cell.replace(LEADING_QUOTES, '');
  if (rest.startsWith('\t') || rest.startsWith('\r')) return true;
  const head = rest.replace(LEADING_SPACE, '').slice(0, 8).normalize('NFKC').replace(LEADING_SPACE, '');
  return FORMULA_CHARACTERS.has(head.charAt(0));
}

/**
 * CSV injection (decision 156): a cell that a spreadsheet could run as a formula gets a leading
 * `'`; plain numbers (`-5`, ` -2.5`, `+1e3`) are left alone, so a number column stays numbers.
 * Cells that already start with `'`s before such a start get one more, so that `restoreCell`
 * undoes exactly this and the round trip is exact.
 */
export function neutralizeCell(cell: string): string {
  return startsLikeFormula(cell) && parseNumber(cell) === null ? `'${cell}` : cell;
}

/**
 * The inverse of `neutralizeCell`, applied to every cell of an import: a cell that starts with
 * `'` and is formula-like after its quotes lost one quote on the way out.
 */
export function restoreCell(cell: string): string {
  return cell.startsWith("'") && startsLikeFormula(cell) ? cell.slice(1) : cell;
}
