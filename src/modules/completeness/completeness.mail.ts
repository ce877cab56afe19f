import type { PeriodType } from '../../db/schema/index.ts';
import type { MailMessage } from '../../mail/mailer.ts';
import { mailTexts } from '../../mail/translate.ts';

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/**
 * The reminder e-mail, in the recipient's language (`locale`; English when none): which of the
 * person's sites miss what for one period of a form.
 */
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
  locale?: string | null;
}): MailMessage {
  const { t, day, period: periodOf } = mailTexts(input.locale);
  const period = periodOf(input.year, input.periodType, input.periodUnit);
  const hello = input.name ? t('helloName', { name: input.name }) : t('hello');
  const notComplete = t('reminder.notComplete', {
    sender: input.senderName || t('reminder.sender'),
    form: input.formName,
    period,
  });
  const sentence = input.dueAt
    ? `${notComplete} ${t('reminder.due', { day: day(input.dueAt) })}`
    : notComplete;
  const lines = input.sites.map((s) => `- ${s.name}: ${s.missing.join(', ')}`);
  const text = [
    hello,
    '',
    sentence,
    '',
    t('reminder.missing'),
    ...lines,
    '',
    t('reminder.please'),
    ...(input.link ? ['', `${t('reminder.enterHere')} ${input.link}`] : []),
  ].join('\n');
  const html =
    `<p>${escapeHtml(hello)}</p>` +
    `<p>${escapeHtml(sentence)}</p>` +
    `<p>${escapeHtml(t('reminder.missing'))}</p><ul>${input.sites
      .map((s) => `<li>${escapeHtml(s.name)}: ${s.missing.map(escapeHtml).join(', ')}</li>`)
      .join('')}</ul>` +
    `<p>${escapeHtml(t('reminder.please'))}</p>` +
    (input.link
      ? `<p><a href="${escapeHtml(input.link)}">${escapeHtml(t('reminder.enterLink'))}</a></p>`
      : '');
  return { to: input.to, subject: t('reminder.subject', { form: input.formName, period }), text, html };
}
