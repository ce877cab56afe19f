import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

/** Whose attempts a budget counts: one account (its e-mail address) or one gated dashboard. */
export type BudgetScope = 'account' | 'dashboard';

export interface BudgetSettings {
  /** Attempts let through at once before the back-off starts. */
  budget: number;
  /** The longest wait between two attempts, in seconds. */
  maxDelaySeconds: number;
  /** After this long without an attempt, the count starts again. */
  quietMs: number;
}

export type Reservation =
  /** Let through: the attempt is counted (the `attempts`th of this run). */
  | { admitted: true; attempts: number }
  /** Too early: the next attempt is allowed in `retryAfter` seconds. */
  | { admitted: false; retryAfter: number };

/** At most one e-mail a day tells a subject's owners that its budget ran out. */
const NOTIFY_EVERY_MS = 24 * 60 * 60 * 1000;

/** `backoffSeconds` of the attempt count `n` (an SQL expression), as an interval. */
const delaySql = (n: ReturnType<typeof sql>, s: BudgetSettings) =>
  sql`make_interval(secs => case when ${n} < ${s.budget}::int then 0
    else least(${s.maxDelaySeconds}::int, power(2, least(${n} - ${s.budget}::int, 40)))::int end)`;

/**
 * Counts one attempt on the subject before its secret is checked, or refuses it when it comes
 * before the wait its predecessors set. One statement: parallel attempts are counted one after
 * the other by the row's lock, so no more than the budget ever get through at once. Within the
 * budget nobody waits, whatever the instants parallel requests read from the clock.
 */
export async function reserveAttempt(
  tx: Tx,
  scope: BudgetScope,
  subject: string,
  now: Date,
  settings: BudgetSettings,
): Promise<Reservation> {
  const quietSince = new Date(now.getTime() - settings.quietMs);
  const fresh = sql`(case when b.last_attempt_at <= ${quietSince} then 1 else b.attempts + 1 end)`;
  const counted = await sql<{ attempts: number }>`
    insert into attempt_budgets as b (scope, subject, attempts, last_attempt_at, next_allowed_at)
    values (${scope}, ${subject}, 1, ${now}, ${now}::timestamptz + ${delaySql(sql`1`, settings)})
    on conflict (scope, subject) do update set
      attempts = ${fresh},
      last_attempt_at = ${now},
      next_allowed_at = ${now}::timestamptz + ${delaySql(fresh, settings)}
    where b.attempts < ${settings.budget}::int or b.next_allowed_at <= ${now}
       or b.last_attempt_at <= ${quietSince}
    returning attempts`.execute(tx);
  const row = counted.rows[0];
  if (row) return { admitted: true, attempts: Number(row.attempts) };
  const waiting = await sql<{ next_allowed_at: Date }>`
    select next_allowed_at from attempt_budgets where scope = ${scope} and subject = ${subject}`.execute(tx);
  const until = waiting.rows[0]?.next_allowed_at;
  const retryAfter = until ? Math.ceil((new Date(until).getTime() - now.getTime()) / 1000) : 1;
  return { admitted: false, retryAfter: Math.max(1, retryAfter) };
}

/**
 * Gives a right password's attempt back: the count drops by one and nobody waits because of it.
 * The count is not cleared: a right password says nothing about the other attempts (a shared
 * dashboard password, or an owner signing in while someone guesses at their account).
 */
export async function refundAttempt(tx: Tx, scope: BudgetScope, subject: string, now: Date): Promise<void> {
  await sql`
    update attempt_budgets
       set attempts = greatest(attempts - 1, 0), next_allowed_at = least(next_allowed_at, ${now})
     where scope = ${scope} and subject = ${subject}`.execute(tx);
}

/**
 * Whether this failed attempt is the one to tell the subject's owners about: its count reached
 * the budget and nobody was told within a day. Claimed in one statement, so parallel failures
 * send one e-mail.
 */
export async function claimNotice(
  tx: Tx,
  scope: BudgetScope,
  subject: string,
  attempts: number,
  now: Date,
  settings: Pick<BudgetSettings, 'budget'>,
): Promise<boolean> {
  if (attempts < settings.budget) return false;
  const claimed = await sql`
    update attempt_budgets set notified_at = ${now}
     where scope = ${scope} and subject = ${subject}
       and (notified_at is null or notified_at <= ${new Date(now.getTime() - NOTIFY_EVERY_MS)})
    returning 1`.execute(tx);
  return claimed.rows.length === 1;
}

/**
 * Removes up to 100 budget rows nobody tried for a day or more past the quiet spell (and whose
 * notice, if any, is a day old): their count would start again anyway. Called when a run starts.
 */
export async function pruneStale(tx: Tx, now: Date, quietMs: number): Promise<void> {
  const cutoff = new Date(now.getTime() - Math.max(quietMs, NOTIFY_EVERY_MS));
  await sql`
    delete from attempt_budgets where (scope, subject) in (
      select scope, subject from attempt_budgets
       where last_attempt_at < ${cutoff} and (notified_at is null or notified_at < ${cutoff})
       limit 100)`.execute(tx);
}
