import type { MailMessage } from '../../mail/mailer.ts';
import { type MailTexts, mailTexts } from '../../mail/translate.ts';
import type { ReviewRow } from './submissions.queue.repository.ts';

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** What a rejected value held, in words: an option's label, Yes/No, a number in the reader's way; '' for files and activities. */
function shown(row: ReviewRow, { t, number }: MailTexts): string {
  const v = row.value;
  if (row.element_type === 'SELECT')
    return row.element_options?.find((o) => o.value === v)?.label ?? String(v);
  if (row.element_type === 'FILE' || row.element_type === 'ACTIVITY' || v === null || typeof v === 'object')
    return '';
  if (typeof v === 'boolean') return v ? t('yes') : t('no');
  if (typeof v === 'number') return number(v);
  return String(v);
}

/** One period of one form and site among the rejected values, with the screen that corrects it. */
interface Group {
  title: string;
  link: string | null;
  lines: string[];
}

function groupsOf(rows: ReviewRow[], publicUrl: string | undefined, texts: MailTexts): Group[] {
  const groups = new Map<string, Group & { rows: ReviewRow[] }>();
  for (const row of rows) {
    const key = `${row.form_id}/${row.site_id}/${row.year}/${row.period_unit}`;
    const group = groups.get(key) ?? {
      title: `${row.form_name}, ${row.site_name}, ${texts.period(row.year, row.period_type, row.period_unit)}`,
      link: publicUrl ? `${publicUrl.replace(/\/+$/, '')}/app/enter/${key}` : null,
      lines: [],
      rows: [],
    };
    group.rows.push(row);
    groups.set(key, group);
  }
  return [...groups.values()]
    .sort((a, b) => a.title.localeCompare(b.title, texts.locale))
    .map((g) => ({
      title: g.title,
      link: g.link,
      lines: g.rows
        .sort((a, b) => a.element_position - b.element_position)
        .map((r) => {
          const value = shown(r, texts);
          return value ? texts.t('rejection.entered', { label: r.element_label, value }) : r.element_label;
        }),
    }));
}

/**
 * The e-mail telling the person who recorded `rows` that a reviewer rejected them, in that person's
 * language (`locale`; English when none): the values by form, site and period, each period with
 * the link to its entry screen, and the reviewer's comment.
 */
export function rejectionMail(input: {
  to: string;
  name: string;
  reviewerName: string;
  comment: string;
  rows: ReviewRow[];
  /** The service's public address; without it the e-mail names the periods without links. */
  publicUrl?: string;
  locale?: string | null;
}): MailMessage {
  const texts = mailTexts(input.locale);
  const { t } = texts;
  const groups = groupsOf(input.rows, input.publicUrl, texts);
  const count = input.rows.length;
  const reviewer = input.reviewerName || t('rejection.reviewer');
  const subject =
    groups.length === 1
      ? t('rejection.subjectOne', { title: groups[0]!.title })
      : t('rejection.subjectMany', { count, periods: groups.length });
  const hello = input.name ? t('helloName', { name: input.name }) : t('hello');
  const rejected = t('rejection.rejected', { count, reviewer });
  const text = [
    hello,
    '',
    rejected,
    '',
    `${t('rejection.comment')} ${input.comment}`,
    '',
    ...groups.flatMap((g) => [
      `${g.title}:`,
      ...g.lines.map((l) => `- ${l}`),
      ...(g.link ? [`${t('rejection.correctHere')} ${g.link}`] : []),
      '',
    ]),
    t('rejection.back'),
  ].join('\n');
  const html =
    `<p>${escapeHtml(hello)}</p>` +
    `<p>${escapeHtml(rejected)}</p>` +
    `<p>${escapeHtml(t('rejection.comment'))} <q>${escapeHtml(input.comment)}</q></p>` +
    groups
      .map(
        (g) =>
          `<p><b>${escapeHtml(g.title)}</b></p><ul>${g.lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>` +
          (g.link
            ? `<p><a href="${escapeHtml(g.link)}">${escapeHtml(t('rejection.correctLink'))}</a></p>`
            : ''),
      )
      .join('') +
    `<p>${escapeHtml(t('rejection.back'))}</p>`;
  return { to: input.to, subject, text, html };
}
