import type { MailMessage } from '../../mail/mailer.ts';
import { periodLabel } from '../completeness/index.ts';
import type { ReviewRow } from './submissions.queue.repository.ts';

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** What a rejected value held, in words: an option's label, Yes/No, or the value as typed; '' for files and activities. */
function shown(row: ReviewRow): string {
  const v = row.value;
  if (row.element_type === 'SELECT')
    return row.element_options?.find((o) => o.value === v)?.label ?? String(v);
  if (row.element_type === 'FILE' || row.element_type === 'ACTIVITY' || v === null || typeof v === 'object')
    return '';
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  return String(v);
}

/** One period of one form and site among the rejected values, with the screen that corrects it. */
interface Group {
  title: string;
  link: string | null;
  lines: string[];
}

function groupsOf(rows: ReviewRow[], publicUrl: string | undefined): Group[] {
  const groups = new Map<string, Group & { rows: ReviewRow[] }>();
  for (const row of rows) {
    const key = `${row.form_id}/${row.site_id}/${row.year}/${row.period_unit}`;
    const group = groups.get(key) ?? {
      title: `${row.form_name}, ${row.site_name}, ${periodLabel(row.year, row.period_type, row.period_unit)}`,
      link: publicUrl ? `${publicUrl.replace(/\/+$/, '')}/app/enter/${key}` : null,
      lines: [],
      rows: [],
    };
    group.rows.push(row);
    groups.set(key, group);
  }
  return [...groups.values()]
    .sort((a, b) => a.title.localeCompare(b.title))
    .map((g) => ({
      title: g.title,
      link: g.link,
      lines: g.rows
        .sort((a, b) => a.element_position - b.element_position)
        .map((r) => (shown(r) ? `${r.element_label} (entered: ${shown(r)})` : r.element_label)),
    }));
}

/**
 * The e-mail telling the person who recorded `rows` that a reviewer rejected them: the values by
 * form, site and period, each period with the link to its entry screen, and the reviewer's comment.
 */
export function rejectionMail(input: {
  to: string;
  name: string;
  reviewerName: string;
  comment: string;
  rows: ReviewRow[];
  /** The service's public address; without it the e-mail names the periods without links. */
  publicUrl?: string;
}): MailMessage {
  const groups = groupsOf(input.rows, input.publicUrl);
  const count = input.rows.length;
  const what = count === 1 ? 'a value you entered' : `${count} values you entered`;
  const reviewer = input.reviewerName || 'A reviewer';
  const subject =
    groups.length === 1
      ? `Please correct: ${groups[0]!.title}`
      : `Please correct ${count} values in ${groups.length} periods`;
  const text = [
    `Hello${input.name ? ` ${input.name}` : ''},`,
    '',
    `${reviewer} rejected ${what} and asks you to correct ${count === 1 ? 'it' : 'them'}.`,
    '',
    `Comment: ${input.comment}`,
    '',
    ...groups.flatMap((g) => [
      `${g.title}:`,
      ...g.lines.map((l) => `- ${l}`),
      ...(g.link ? [`Correct it here: ${g.link}`] : []),
      '',
    ]),
    'Once you have entered the corrected values, they go back to the reviewer.',
  ].join('\n');
  const html =
    `<p>Hello${input.name ? ` ${escapeHtml(input.name)}` : ''},</p>` +
    `<p>${escapeHtml(reviewer)} rejected ${what} and asks you to correct ${count === 1 ? 'it' : 'them'}.</p>` +
    `<p>Comment: <q>${escapeHtml(input.comment)}</q></p>` +
    groups
      .map(
        (g) =>
          `<p><b>${escapeHtml(g.title)}</b></p><ul>${g.lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>` +
          (g.link ? `<p><a href="${escapeHtml(g.link)}">Correct the values</a></p>` : ''),
      )
      .join('') +
    '<p>Once you have entered the corrected values, they go back to the reviewer.</p>';
  return { to: input.to, subject, text, html };
}
