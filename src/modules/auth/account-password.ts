import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../domain/clock.ts';
import { hashPassword, verifyPassword } from '../../lib/secrets.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { type AttemptBudget, attemptBudget, longestWait, WaitBeforeRetry } from './attempt-budget.ts';
import { accountAttemptsMail } from './auth.mail.ts';

/** What a password check needs besides the database: the account budget, the clock and the mailer. */
export interface PasswordCheckDeps {
  budget: AttemptBudget;
  clock: Clock;
  mailer: Mailer;
  log: FastifyBaseLogger;
}

/** The per-account budget of password attempts, across client addresses (decision 154). */
export function accountBudget(database: Database, config: Config): AttemptBudget {
  return attemptBudget(database, 'account', {
    budget: config.accountAttemptBudget,
    maxDelaySeconds: config.attemptBackoffMaxSeconds,
    quietMs: config.attemptBudgetQuietMinutes * 60_000,
  });
}

// Verifying against a fixed hash keeps a check for an unknown e-mail as slow as a real one.
let dummyHash: Promise<string> | undefined;

/**
 * Checks a password of the account `email` on the account's budget, wherever a password is given:
 * signing in, and accepting an invitation as an existing account (decision 169). The attempt is
 * counted before the password is checked; past the budget it waits (429 with Retry-After). A right
 * password gives its attempt back; the wrong one that spends the budget tells the owner once.
 * `account` is the stored account (undefined when the e-mail has none).
 */
export async function checkAccountPassword(
  deps: PasswordCheckDeps,
  email: string,
  account: { email: string; passwordHash: string | null } | undefined,
  password: string,
): Promise<boolean> {
  const subject = email.trim().toLowerCase();
  const now = deps.clock();
  const reserved = await deps.budget.reserve(subject, now);
  if (!reserved.admitted) {
    throw new WaitBeforeRetry(
      `Too many sign-in attempts for this account; try again in ${reserved.retryAfter} s`,
      reserved.retryAfter,
    );
  }
  dummyHash ??= hashPassword('not-a-password');
  const ok = await verifyPassword(account?.passwordHash ?? (await dummyHash), password);
  if (ok && account) {
    await deps.budget.refund(subject, now);
    return true;
  }
  if (account && (await deps.budget.claimNotice(subject, reserved.attempts, now))) {
    // Told once; a mail that cannot be sent must not change the answer to the attempt.
    await deps.mailer
      .send(
        accountAttemptsMail({
          to: account.email,
          attempts: reserved.attempts,
          at: now,
          longestWait: longestWait(deps.budget.settings),
        }),
      )
      .catch((err: unknown) => deps.log.error({ err }, 'failed sign-in notice not sent'));
  }
  return false;
}
