import type { MailMessage } from '../../mail/mailer.ts';

/**
 * Tells an account's owner that its password was guessed at past the budget: what happened, what
 * the service does about it, and what they may want to do. No addresses or ids of the attempts.
 */
export function accountAttemptsMail(input: {
  to: string;
  attempts: number;
  at: Date;
  longestWait: string;
}): MailMessage {
  const text = [
    'Hello,',
    '',
    `Your SDCS account (${input.to}) has had ${input.attempts} sign-in attempts with a wrong password`,
    `within a short time, the last on ${input.at.toUTCString()}.`,
    '',
    'Until the attempts stop, each further sign-in has to wait a little longer than the one before',
    `(at most ${input.longestWait}). Your own sign-in still works once the wait is over.`,
    '',
    'If these attempts were not yours, someone may be guessing your password: choose a long,',
    'unique one. If they were yours, nothing needs to be done.',
  ].join('\n');
  return { to: input.to, subject: 'Many failed sign-in attempts on your SDCS account', text };
}
