import type { MailMessage } from '../../mail/mailer.ts';

/** The e-mail carrying a one-time code for a dashboard's public link. */
export function accessCodeMail(input: {
  to: string;
  dashboardName: string;
  code: string;
  expiresAt: Date;
}): MailMessage {
  const until = input.expiresAt.toUTCString();
  const text = [
    'Hello,',
    '',
    `Your code to open the dashboard "${input.dashboardName}" is:`,
    '',
    `    ${input.code}`,
    '',
    `It works once, until ${until}.`,
    'If you did not ask for it, ignore this e-mail.',
  ].join('\n');
  return { to: input.to, subject: `Your code for "${input.dashboardName}": ${input.code}`, text };
}
