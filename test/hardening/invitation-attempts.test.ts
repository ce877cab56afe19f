import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/client.ts';
import { hashPassword } from '../../src/lib/secrets.ts';
import type { MailMessage } from '../../src/mail/mailer.ts';
import { api, openTestDatabase, testConfig } from '../helpers/app.ts';
import { createTenant, type Tenant } from '../helpers/factories.ts';

/**
 * Issue 41 (the rest of item 5): accepting an invitation as an existing account checks that
 * account's password, and it did so outside the account's attempt budget: any number of guesses
 * from many addresses, each told whether the password was right. Now the guesses count on the
 * same budget as sign-ins (decision 169).
 */
let app: FastifyInstance;
let database: Database;
let drop: () => Promise<void>;
let inviting: Tenant;
let invitee: Tenant;
let now = new Date('2026-03-02T09:00:00Z');
const sent: MailMessage[] = [];
const config: Config = testConfig({
  authAttemptsPerMinute: 10,
  accountAttemptBudget: 5,
  attemptBackoffMaxSeconds: 900,
  attemptBudgetQuietMinutes: 60,
});
const PASSWORD = 'the invitee password';
const ctx = () => ({ app, database, config });

beforeAll(async () => {
  const opened = await openTestDatabase();
  database = opened.database;
  drop = opened.drop;
  app = await buildApp({
    database,
    config,
    clock: () => now,
    mailer: { kind: 'test', send: async (m) => void sent.push(m) },
  });
  await app.ready();
  inviting = await createTenant(ctx());
  invitee = await createTenant(ctx());
  const hash = await hashPassword(PASSWORD);
  await database.system((tx) =>
    tx.updateTable('users').set({ password_hash: hash }).where('id', '=', invitee.owner.userId).execute(),
  );
});
afterAll(async () => {
  await app.close();
  await drop();
});

const ip = (i: number) => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;
const post = (i: number, url: string, payload: object) =>
  app
    .inject({ method: 'POST', url: `/api/v1${url}`, payload, remoteAddress: ip(i) })
    .then((r) => ({ status: r.statusCode, body: r.json(), retryAfter: r.headers['retry-after'] }));

/** Invites the other organization's owner (an existing account) and answers the link's token. */
async function inviteExisting(): Promise<string> {
  const res = await api(ctx(), 'POST', '/organizations/current/invitations', {
    token: inviting.owner.token,
    body: { email: invitee.owner.email, role: 'VIEWER', assignedSiteIds: [] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const mail = sent.filter((m) => m.to === invitee.owner.email).at(-1)!;
  return /token=(sdcs_inv_\w+)/.exec(mail.text)![1]!;
}

describe('accepting an invitation as an existing account', () => {
  it('counts each password on the account’s budget: 5 checked (400), then 429 with Retry-After, with sign-ins', async () => {
    const token = await inviteExisting();
    const accept = (i: number, password: string) =>
      post(i, '/invitations/accept', { token, name: 'ignored', password });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await accept(i, `wrong guess ${i}`)).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429, 429, 429]);
    // The right password is not looked at during the wait: nothing tells a guess from the password.
    const early = await accept(20, PASSWORD);
    expect(early.status).toBe(429);
    expect(early.retryAfter).toBe('1');
    expect(early.body.code).toBe('TOO_MANY_REQUESTS');
    // One budget for the account: sign-in waits too.
    const login = await post(21, '/auth/login', { email: invitee.owner.email, password: PASSWORD });
    expect(login.status).toBe(429);
    // The owner of the account is told once.
    const notices = sent.filter((m) => m.to === invitee.owner.email && /failed sign-in/i.test(m.subject));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.text).toContain('5 sign-in attempts');
    // Not a lock-out: once the wait is over, the right password accepts.
    now = new Date(now.getTime() + 1_000);
    const right = await accept(22, PASSWORD);
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    expect(right.body).toMatchObject({ success: true, organizationId: inviting.organizationId });
  });

  it('a new account’s acceptance (no password to guess) is not counted on any budget', async () => {
    now = new Date(now.getTime() + 2 * 3_600_000);
    const email = `new-${Date.now()}@example.com`;
    const res = await api(ctx(), 'POST', '/organizations/current/invitations', {
      token: inviting.owner.token,
      body: { email, role: 'VIEWER', assignedSiteIds: [] },
    });
    expect(res.status).toBe(200);
    const token = /token=(sdcs_inv_\w+)/.exec(sent.filter((m) => m.to === email).at(-1)!.text)![1]!;
    const accepted = await post(30, '/invitations/accept', {
      token,
      name: 'New',
      password: 'long enough pw',
    });
    expect(accepted.status).toBe(200);
    const rows = await database.system((tx) =>
      sql`SELECT attempts FROM attempt_budgets WHERE subject = ${email.toLowerCase()}`.execute(tx),
    );
    expect(rows.rows).toEqual([]);
  });
});
