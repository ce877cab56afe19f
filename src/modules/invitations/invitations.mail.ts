import type { Role } from '../../db/schema/index.ts';
import type { MailMessage } from '../../mail/mailer.ts';
import { mailTexts } from '../../mail/translate.ts';

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/**
 * The invitation e-mail, in the invitee's language (`locale`; English when none): who invites, to
 * which organization and role, and the link to accept.
 */
export function invitationMail(input: {
  to: string;
  organizationName: string;
  inviterName: string;
  role: Role;
  link: string;
  expiresAt: Date;
  locale?: string | null;
}): MailMessage {
  const { t, moment } = mailTexts(input.locale);
  const role = t('role', { role: input.role });
  const inviter = input.inviterName || t('invitation.colleague');
  const until = moment(input.expiresAt);
  const org = input.organizationName;
  const text = [
    t('hello'),
    '',
    t('invitation.invites', { inviter, org, role }),
    '',
    t('invitation.acceptHere'),
    input.link,
    '',
    t('invitation.once', { until }),
    '',
    t('invitation.ignore'),
  ].join('\n');
  const html =
    `<p>${escapeHtml(t('hello'))}</p>` +
    `<p>${escapeHtml(t('invitation.invites', { inviter, org, role }))}</p>` +
    `<p><a href="${escapeHtml(input.link)}">${escapeHtml(t('invitation.acceptLink'))}</a></p>` +
    `<p>${escapeHtml(t('invitation.once', { until }))}</p>` +
    `<p>${escapeHtml(t('invitation.ignore'))}</p>`;
  return { to: input.to, subject: t('invitation.subject', { org }), text, html };
}
