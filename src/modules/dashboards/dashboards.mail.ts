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

/**
 * Tells an organization's owner that a shared dashboard's password was guessed at past its
 * budget: which dashboard (by name), how many attempts, and what the service does about it.
 */
export function passwordAttemptsMail(input: {
  to: string;
  dashboardName: string;
  attempts: number;
  at: Date;
  longestWait: string;
}): MailMessage {
  const text = [
    'Hello,',
    '',
    `The public link of your dashboard "${input.dashboardName}" has had ${input.attempts} attempts`,
    `with a wrong password within a short time, the last on ${input.at.toUTCString()}.`,
    '',
    'Until the attempts stop, each further password attempt on this dashboard has to wait a little',
    `longer than the one before (at most ${input.longestWait}); people who already opened it are not affected.`,
    '',
    "If the password may have been shared too widely, change it in the dashboard's settings: that",
    'also ends every access granted with the old one.',
  ].join('\n');
  return {
    to: input.to,
    subject: `Many wrong passwords on the dashboard "${input.dashboardName}"`,
    text,
  };
}
