import type { PeriodType } from '../../db/schema/index.ts';
import type { MailMessage } from '../../mail/mailer.ts';
import { periodLabel } from './completeness.periods.ts';

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** The reminder e-mail: which of the person's sites miss what for one period of a form. */
export function reminderMail(input: {
  to: string;
  name: string;
  senderName: string;
  formName: string;
  year: number;
  periodType: PeriodType;
  periodUnit: number;
  dueAt: Date | null;
  sites: { name: string; missing: string[] }[];
  /** The web app's screen for it (PUBLIC_URL + /app/...), when the service knows its address. */
  link?: string;
}): MailMessage {
  const period = periodLabel(input.year, input.periodType, input.periodUnit);
  const due = input.dueAt ? ` It was due on ${input.dueAt.toISOString().slice(0, 10)}.` : '';
  const sender = input.senderName || 'Your manager';
  const lines = input.sites.map((s) => `- ${s.name}: ${s.missing.join(', ')}`);
  const text = [
    `Hello${input.name ? ` ${input.name}` : ''},`,
    '',
    `${sender} reminds you that "${input.formName}" for ${period} is not complete yet.${due}`,
    '',
    'Still missing:',
    ...lines,
    '',
    'Please enter the data in SDCS, or mark the period as having no activity where there was none.',
    ...(input.link ? ['', `Enter it here: ${input.link}`] : []),
  ].join('\n');
  const html =
    `<p>Hello${input.name ? ` ${escapeHtml(input.name)}` : ''},</p>` +
    `<p>${escapeHtml(sender)} reminds you that <b>${escapeHtml(input.formName)}</b> for ${period} is not complete yet.${due}</p>` +
    `<p>Still missing:</p><ul>${input.sites
      .map((s) => `<li>${escapeHtml(s.name)}: ${s.missing.map(escapeHtml).join(', ')}</li>`)
      .join('')}</ul>` +
    '<p>Please enter the data in SDCS, or mark the period as having no activity where there was none.</p>' +
    (input.link ? `<p><a href="${escapeHtml(input.link)}">Enter the data</a></p>` : '');
  return { to: input.to, subject: `Reminder: ${input.formName}, ${period}`, text, html };
}
