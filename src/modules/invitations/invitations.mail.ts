import type { Role } from '../../db/schema/index.ts';
import type { MailMessage } from '../../mail/mailer.ts';

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** The invitation e-mail: who invites, to which organization and role, and the link to accept. */
export function invitationMail(input: {
  to: string;
  organizationName: string;
  inviterName: string;
  role: Role;
  link: string;
  expiresAt: Date;
}): MailMessage {
  const role = input.role.charAt(0) + input.role.slice(1).toLowerCase();
  const inviter = input.inviterName || 'A colleague';
  const until = input.expiresAt.toUTCString();
  const text = [
    'Hello,',
    '',
    `${inviter} invites you to join ${input.organizationName} on SDCS as ${role}.`,
    '',
    'Accept the invitation here:',
    input.link,
    '',
    `The link works once, until ${until}. If you already have an SDCS account with this e-mail`,
    'address, confirm with its password; otherwise choose a name and a password.',
    '',
    'If you did not expect this invitation, ignore this e-mail.',
  ].join('\n');
  const html =
    `<p>Hello,</p><p>${escapeHtml(inviter)} invites you to join <b>${escapeHtml(input.organizationName)}</b>` +
    ` on SDCS as ${role}.</p><p><a href="${escapeHtml(input.link)}">Accept the invitation</a></p>` +
    `<p>The link works once, until ${escapeHtml(until)}. If you already have an SDCS account with this` +
    ' e-mail address, confirm with its password; otherwise choose a name and a password.</p>' +
    '<p>If you did not expect this invitation, ignore this e-mail.</p>';
  return { to: input.to, subject: `Invitation to join ${input.organizationName} on SDCS`, text, html };
}
