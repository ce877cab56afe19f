import { randomInt, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Tx } from '../../db/client.ts';
import { AppError, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { randomBase62, sha256Hex, verifyPassword } from '../../lib/secrets.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { type AttemptBudget, longestWait } from '../auth/index.ts';
import { dashboardAccessRepository as access } from './access.repository.ts';
import { accessCodeMail, passwordAttemptsMail } from './dashboards.mail.ts';
import { dashboardPolicy } from './dashboards.policy.ts';
import { findPublicDashboard, requiresEmail, requiresPassword } from './dashboards.public.ts';
import type { AccessBody } from './dashboards.schemas.ts';

/** 429 of too many attempts; the route sends `retryAfter` as the Retry-After header. */
export class RetryLater extends AppError {
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super('TOO_MANY_REQUESTS', message);
  }
}

export const GRANT_TTL_MS = 60 * 60 * 1000;
export const CODE_TTL_MS = 10 * 60 * 1000;
/** Attempts (failures and codes sent) one client address may make on one dashboard per window. */
export const MAX_CODE_ATTEMPTS = 10;
export const ATTEMPT_WINDOW_MS = 15 * 60 * 1000;
/**
 * Wrong codes one address may be tried with on one dashboard per window, from all client
 * addresses together: past it, its live codes are voided and code requests are refused (429).
 */
export const MAX_CODE_FAILURES_PER_ADDRESS = 5;
/** Wrong guesses one code survives; the last one voids it. */
export const MAX_FAILURES_PER_CODE = 3;

type Row = NonNullable<Awaited<ReturnType<typeof findPublicDashboard>>>;

export interface AccessDeps {
  database: Database;
  mailer: Mailer;
  clock: () => Date;
  /** Wrong passwords per dashboard across client addresses (decision 154). */
  budget: AttemptBudget;
  log?: FastifyBaseLogger;
}

/** The 401 of a gated dashboard: which gates apply, so a client knows what to ask for. */
export function gateRefusal(row: Row, message: string): AppError {
  return new AppError('UNAUTHORIZED', message, [], {
    issues: [],
    requiresPassword: requiresPassword(row),
    requiresEmail: requiresEmail(row),
  });
}

export const isGated = (row: Row) => requiresPassword(row) || requiresEmail(row);

/** Grants are `sdcs_dg_…`: neither an access token nor an API key, so no other route accepts them. */
const newGrantToken = () => `sdcs_dg_${randomBase62(43)}`;
const codeHash = (dashboardId: string, email: string, code: string) =>
  sha256Hex(`${dashboardId}:${email}:${code}`);

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Whether a bearer grant opens this dashboard now: issued for it, unexpired, and of its current
 * gate version (a changed password or address list ends older grants).
 */
export async function grantOpens(tx: Tx, row: Row, bearer: string | undefined, now: Date): Promise<boolean> {
  if (!bearer) return false;
  const grant = await access.findGrant(tx, row.organization_id, row.id, sha256Hex(bearer));
  return grant !== undefined && grant.gate_version === row.gate_version && grant.expires_at > now;
}

type Granted =
  | { status: 200; body: { accessToken: string; expiresAt: string } }
  | { status: 202; body: { codeSent: true; email: string; expiresAt: string } };

type Outcome = Granted | { status: 401 | 403 | 429; message: string; retryAfter?: number };

/**
 * `POST /public/dashboards/{id}/access`: checks the gates in order (password, then address and
 * its code) and answers a grant, a mailed code (202) or a refusal. Every request is counted
 * first, in a statement of its own that commits before anything is checked (decision 154): a
 * refusal keeps its count, parallel requests cannot read a stale one, and a success clears it.
 */
export async function requestAccess(
  deps: AccessDeps,
  id: string,
  body: AccessBody,
  client: string,
): Promise<Granted> {
  const row = await findPublicDashboard(deps.database, id);
  if (!row) throw notFound('Dashboard');
  const outcome = await decide(deps, row, body, client);
  if (outcome.status === 200 || outcome.status === 202) return outcome;
  if (outcome.status === 401) throw gateRefusal(row, outcome.message);
  if (outcome.status === 403) throw new AppError('FORBIDDEN', outcome.message);
  throw new RetryLater(outcome.message, outcome.retryAfter ?? 60);
}

const tooMany = (message: string, retryAfter: number): Outcome => ({
  status: 429,
  message: `${message}; try again in ${retryAfter} s`,
  retryAfter,
});

async function decide(deps: AccessDeps, row: Row, body: AccessBody, client: string): Promise<Outcome> {
  const now = deps.clock();
  const org = row.organization_id;
  const windowStart = new Date(now.getTime() - ATTEMPT_WINDOW_MS);
  const counted = await deps.database.tenant(org, (tx) =>
    access.countAttempt(tx, org, row.id, client, now, windowStart),
  );
  if (counted.attempts > MAX_CODE_ATTEMPTS) {
    const ends = counted.windowStartedAt.getTime() + ATTEMPT_WINDOW_MS;
    return tooMany('Too many attempts', Math.max(1, Math.ceil((ends - now.getTime()) / 1000)));
  }

  if (requiresPassword(row)) {
    if (body.password === undefined) return { status: 401, message: 'This dashboard needs its password' };
    // The dashboard's own budget, across client addresses, counted before the password is checked.
    const reserved = await deps.budget.reserve(row.id, now);
    if (!reserved.admitted)
      return tooMany('Too many password attempts on this dashboard', reserved.retryAfter);
    if (!(await verifyPassword(row.password_hash, body.password))) {
      if (await deps.budget.claimNotice(row.id, reserved.attempts, now))
        await tellOwners(deps, row, reserved.attempts, now);
      return { status: 401, message: 'Wrong password' };
    }
    await deps.budget.refund(row.id, now);
  }
  return deps.database.tenant(org, (tx) => afterPassword(tx, deps, row, body, client, now));
}

/** Tells the organization's owners, once, that the dashboard's password budget is spent. */
async function tellOwners(deps: AccessDeps, row: Row, attempts: number, now: Date): Promise<void> {
  try {
    const owners = await deps.database.tenant(row.organization_id, (tx) =>
      access.ownerAddresses(tx, row.organization_id),
    );
    for (const to of owners) {
      await deps.mailer.send(
        passwordAttemptsMail({
          to,
          dashboardName: row.name,
          attempts,
          at: now,
          longestWait: longestWait(deps.budget.settings),
        }),
      );
    }
  } catch (err) {
    // The notice is a courtesy: failing to send it must not change the answer to the attempt.
    deps.log?.error({ err }, 'dashboard password notice not sent');
  }
}

/** The e-mail gate (when there is one) and the grant, in one tenant transaction. */
async function afterPassword(
  tx: Tx,
  deps: AccessDeps,
  row: Row,
  body: AccessBody,
  client: string,
  now: Date,
): Promise<Outcome> {
  const org = row.organization_id;
  const windowStart = new Date(now.getTime() - ATTEMPT_WINDOW_MS);
  let email: string | null = null;
  if (requiresEmail(row)) {
    if (body.email === undefined)
      return { status: 401, message: 'This dashboard needs an allowed e-mail address' };
    email = body.email.trim().toLowerCase();
    if (!dashboardPolicy.emailAllowed(email, row.public_access_emails, row.public_access_domains))
      return { status: 403, message: 'This e-mail address may not open this dashboard' };
    // The address's own budget of wrong codes, counted across client addresses, one step at a time.
    await access.lockAddress(tx, row.id, email);
    const address = `email:${email}`;
    const guessed = await access.attempts(tx, org, row.id, address);
    if (
      guessed &&
      guessed.window_started_at > windowStart &&
      guessed.attempts >= MAX_CODE_FAILURES_PER_ADDRESS
    ) {
      await access.voidCodes(tx, org, row.id, email, now);
      const ends = guessed.window_started_at.getTime() + ATTEMPT_WINDOW_MS;
      return tooMany(
        'Too many wrong codes for this address',
        Math.max(1, Math.ceil((ends - now.getTime()) / 1000)),
      );
    }
    if (body.code === undefined) {
      // One live code per address: a new one replaces the ones sent before.
      await access.voidCodes(tx, org, row.id, email, now);
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const expiresAt = new Date(now.getTime() + CODE_TTL_MS);
      await access.insertCode(tx, org, {
        dashboardId: row.id,
        email,
        codeHash: codeHash(row.id, email, code),
        gateVersion: row.gate_version,
        expiresAt,
      });
      // The request that sent a code was counted as an attempt: nobody can have a mailbox
      // flooded through the link.
      await deps.mailer.send(accessCodeMail({ to: email, dashboardName: row.name, code, expiresAt }));
      return { status: 202, body: { codeSent: true, email, expiresAt: iso(expiresAt) } };
    }
    const wanted = codeHash(row.id, email, body.code);
    const codes = await access.liveCodes(tx, org, row.id, email, now);
    const match = codes.find((c) => sameHash(c.code_hash, wanted) && c.gate_version === row.gate_version);
    if (!match || !(await access.useCode(tx, org, match.id, now))) {
      await access.countAttempt(tx, org, row.id, address, now, windowStart);
      await access.failCodes(tx, org, row.id, email, now, MAX_FAILURES_PER_CODE);
      return { status: 401, message: 'Wrong or expired code' };
    }
    await access.clearAttempts(tx, org, row.id, address);
  }

  await access.clearAttempts(tx, org, row.id, client);
  const accessToken = newGrantToken();
  const expiresAt = new Date(now.getTime() + GRANT_TTL_MS);
  await access.insertGrant(tx, org, {
    dashboardId: row.id,
    tokenHash: sha256Hex(accessToken),
    email,
    gateVersion: row.gate_version,
    expiresAt,
  });
  return { status: 200, body: { accessToken, expiresAt: iso(expiresAt) } };
}
