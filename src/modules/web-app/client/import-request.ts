// What the import screen sends and asks (import.ts): the request's context (the year and the site
// the adapter takes from the request), checked before anything is sent, and every row issue of a run.
import { answer, api } from './api.js';
import type { Adapter, ImportIssue } from './api-shapes.js';
import { t } from './i18n/index.js';
import type { Sheets } from './workbook-reader.js';

/** Issues fetched per page, and at most this many pages. */
const ISSUE_PAGE = 1000;
const ISSUE_PAGES = 10;

export const newKey = () => `web-${crypto.randomUUID()}`;
/** A reading problem (a ReadError's key and values, see sheet-limits.js) in the person's language. */
export const readProblem = (error: unknown) => {
  const problem = error as { key?: string; values?: Record<string, string | number>; message?: string };
  return problem.key ? t(problem.key, problem.values) : (problem.message ?? '');
};

/**
 * What the adapter takes from the request rather than from a column: the year for the sheets
 * with neither a year column nor a date column, the site for the sheets without a site column.
 */
export function requestFields(adapter: Adapter | undefined) {
  const sheets = adapter?.mapping?.sheets ?? [];
  return {
    yearSheets: sheets.filter((s) => !s.year && !(s.period && 'dateColumn' in s.period)).map((s) => s.sheet),
    siteSheets: sheets.filter((s) => !s.site).map((s) => s.sheet),
    datedSheets: sheets.filter((s) => !s.year && s.period && 'dateColumn' in s.period).map((s) => s.sheet),
  };
}

export const sheetList = (names: string[]) =>
  names.map((n) => (n === '*' ? t('import.everySheet') : t('import.quoted', { name: n }))).join(', ');

/** The year as typed, or an error message. */
export function readYear(
  text: string,
): { year: number; error?: undefined } | { error: string; year?: undefined } {
  const trimmed = text.trim();
  if (trimmed === '') return { error: t('import.yearMissing') };
  if (!/^\d{4}$/.test(trimmed)) return { error: t('import.yearDigits') };
  const year = Number(trimmed);
  if (year < 1900 || year > 2200) return { error: t('import.yearRange', { min: '1900', max: '2200' }) };
  return { year };
}

/**
 * Rows dated in another year than the one typed, in the sheets that take their period from a
 * date column but have no year column: the service files such rows under the typed year (its
 * `context.year` wins over the date's), so the screen stops before a date is silently moved.
 */
export function datesOutsideYear(adapter: Adapter | undefined, sheets: Sheets | null, year: number) {
  const found: { sheet: string; index: number; year: number }[] = [];
  for (const m of adapter?.mapping?.sheets ?? []) {
    const period = m.period;
    if (m.year || !(period && 'dateColumn' in period)) continue;
    for (const sheet of sheets ?? []) {
      if (m.sheet !== '*' && m.sheet !== sheet.name) continue;
      sheet.rows.forEach((row, index) => {
        const cell = row[period.dateColumn];
        const dated = typeof cell === 'string' ? /^(\d{4})-\d{2}/.exec(cell.trim()) : null;
        if (dated && Number(dated[1]) !== year)
          found.push({ sheet: sheet.name, index, year: Number(dated[1]) });
      });
    }
  }
  return found;
}

/** Every row issue of a run (a few pages of 1,000 at most). */
export async function allIssues(runId: string) {
  const items: ImportIssue[] = [];
  let total = 0;
  for (let page = 0; page < ISSUE_PAGES; page++) {
    const detail = await answer(
      api.GET('/api/v1/source-imports/{runId}', {
        params: { path: { runId }, query: { limit: ISSUE_PAGE, offset: page * ISSUE_PAGE } },
      }),
    );
    items.push(...detail.issues.items);
    total = detail.issues.pagination.total;
    if (!detail.issues.pagination.hasMore) break;
  }
  return { items, total };
}
