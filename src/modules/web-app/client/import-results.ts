// The import screen's tables (import.ts): the problems the service found, each with the sheet's
// own row number, and every row of the file with what became of it.
import { html } from 'htm/preact';
import type { ImportIssue } from './api-shapes.js';
import { formatNumber } from './format.js';
import { t } from './i18n/index.js';
import { issueText } from './issue-text.js';
import type { Cell, Sheets } from './workbook-reader.js';

type Issues = { items: ImportIssue[]; total: number };

/** Rows listed in the tables (the counts above them cover every row). */
export const LISTED = 1000;

/** The sheet's own row number of rows[index]: row 1 holds the column names. */
export const sheetRow = (index: number) => index + 2;

export function IssueTable({ issues }: { issues: Issues }) {
  const listed = issues.items.slice(0, LISTED);
  const more = issues.total - listed.length;
  return html`<h3>${t('import.problemsTitle')}</h3>
    <div class="table-wrap" tabindex="0" role="region" aria-label=${t('import.problemsLabel')}><table>
      <thead><tr><th scope="col">${t('import.sheet')}</th><th scope="col">${t('import.row')}</th><th scope="col">${t('import.column')}</th><th scope="col">${t('import.problem')}</th></tr></thead>
      <tbody>${listed.map(
        (i) =>
          html`<tr><td>${i.sheet}</td><td class="num">${formatNumber(sheetRow(i.rowIndex))}</td><td>${i.column ?? ''}</td><td>${issueText(i)}</td></tr>`,
      )}</tbody>
    </table></div>
    <p class="hint">${t('import.rowNumbers')}${more > 0 ? ` ${t('import.moreProblems', { count: more })}` : ''}</p>`;
}

const isEmptyRow = (row: Record<string, Cell>) => Object.values(row).every((v) => v === null || v === '');

/** Every row of the file with its sheet, its row number and what became of it. */
export function RowResults({
  sheets,
  issues,
  outcome,
}: {
  sheets: Sheets | null;
  issues: Issues | null;
  outcome: string;
}) {
  if (!sheets || !issues) return null;
  const problems = new Map<string, string[]>();
  for (const i of issues.items) {
    const key = `${i.sheet}\u0000${i.rowIndex}`;
    const text = issueText(i);
    problems.set(key, [...(problems.get(key) ?? []), i.column ? `${i.column}: ${text}` : text]);
  }
  const rows = sheets.flatMap((s) =>
    s.rows.map((row, index) => {
      const found = problems.get(`${s.name}\u0000${index}`);
      return {
        sheet: s.name,
        index,
        word: found
          ? t('import.outcome', { outcome: 'problem' })
          : isEmptyRow(row)
            ? t('import.outcome', { outcome: 'empty' })
            : outcome,
        detail: found?.join(' ') ?? '',
      };
    }),
  );
  const listed = rows.slice(0, LISTED);
  return html`<details class="row-results" open=${rows.length <= 50}>
    <summary>${t('import.everyRow', { count: rows.length })}</summary>
    <div class="table-wrap" tabindex="0" role="region" aria-label=${t('import.everyRowLabel')}><table>
      <caption class="visually-hidden">${t('import.everyRowCaption')}</caption>
      <thead><tr><th scope="col">${t('import.sheet')}</th><th scope="col">${t('import.row')}</th><th scope="col">${t('import.outcomeColumn')}</th><th scope="col">${t('import.details')}</th></tr></thead>
      <tbody>${listed.map(
        (r) =>
          html`<tr><td>${r.sheet}</td><td class="num">${formatNumber(sheetRow(r.index))}</td><td>${r.word}</td><td>${r.detail}</td></tr>`,
      )}</tbody>
    </table></div>
    ${rows.length > listed.length ? html`<p class="hint">${t('import.firstRows', { count: LISTED })}</p>` : null}
  </details>`;
}
