import { request } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/client.ts';
import { hashPassword } from '../../src/lib/secrets.ts';
import type { MailMessage } from '../../src/mail/mailer.ts';
import { backoffSeconds } from '../../src/modules/auth/attempt-budget.ts';
import { api, openTestDatabase, testConfig } from '../helpers/app.ts';
import { createTenant, type Tenant } from '../helpers/factories.ts';

/**
 * Issue 41, item 5: attempt limits were per client address only. 30 wrong logins for one account
 * from 30 addresses all got 401, and so did a gated dashboard's password. Now each account and
 * each dashboard has a budget across addresses; past it, each attempt waits a doubling delay.
 */
let app: FastifyInstance;
let database: Database;
let drop: () => Promise<void>;
let tenant: Tenant;
let now = new Date('2026-03-02T09:00:00Z');
const sent: MailMessage[] = [];
const config: Config = testConfig({
  // Each address below makes only a few attempts: its own limit is not what stops them.
  authAttemptsPerMinute: 10,
  accountAttemptBudget: 20,
  dashboardAttemptBudget: 20,
  attemptBackoffMaxSeconds: 900,
  attemptBudgetQuietMinutes: 60,
});
const PASSWORD = 'the right password';
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
  tenant = await createTenant(ctx());
  const hash = await hashPassword(PASSWORD);
  await database.system((tx) =>
    tx.updateTable('users').set({ password_hash: hash }).where('id', '=', tenant.owner.userId).execute(),
  );
});
afterAll(async () => {
  await app.close();
  await drop();
});

const later = (ms: number) => {
  now = new Date(now.getTime() + ms);
};
/** A request from its own client address (the socket's: no proxy is trusted here). */
const from = (ip: string, url: string, payload: object) =>
  app
    .inject({ method: 'POST', url: `/api/v1${url}`, payload, remoteAddress: ip })
    .then((r) => ({ status: r.statusCode, body: r.json(), retryAfter: r.headers['retry-after'] }));
const login = (ip: string, email: string, password: string) => from(ip, '/auth/login', { email, password });
const ip = (i: number) => `127.0.${Math.floor(i / 250)}.${(i % 250) + 1}`;

describe('the back-off', () => {
  it('lets the budget through, then doubles the wait up to the cap', () => {
    const s = { budget: 3, maxDelaySeconds: 60 };
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => backoffSeconds(n, s))).toEqual([
      0, 0, 1, 2, 4, 8, 16, 32, 60, 60,
    ]);
  });
});

describe('one account from many client addresses', () => {
  it('30 wrong passwords from 30 addresses: 20 are checked (401), then 429 with Retry-After; the owner is told once', async () => {
    const email = tenant.owner.email;
    const statuses: number[] = [];
    const waits: string[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await login(ip(i), email.toUpperCase(), `wrong guess ${i}`);
      statuses.push(res.status);
      if (res.status === 429) waits.push(String(res.retryAfter));
    }
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(10).fill(429));
    // The 20th attempt set a wait of 1 s; the clock has not moved.
    expect(waits).toEqual(Array(10).fill('1'));
    const notices = sent.filter((m) => m.to === email && /failed sign-in/i.test(m.subject));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.text).toContain('20 sign-in attempts');
    expect(notices[0]!.text).toContain('at most 15 minutes');

    // Each wait doubles: 1 s, then 2 s, then 4 s after one more wrong password each.
    later(1_000);
    expect((await login(ip(40), email, 'wrong again')).status).toBe(401);
    const second = await login(ip(41), email, PASSWORD);
    expect(second.status).toBe(429);
    expect(second.retryAfter).toBe('2');
    later(2_000);
    expect((await login(ip(42), email, 'wrong again')).status).toBe(401);
    expect((await login(ip(43), email, PASSWORD)).retryAfter).toBe('4');
    // Not a lock-out: the right password works once the wait is over.
    later(4_000);
    const right = await login(ip(44), email, PASSWORD);
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    // Still one notice: more failures do not send more mail.
    expect(sent.filter((m) => m.to === email)).toHaveLength(1);
    // The wait never exceeds the cap.
    for (let i = 0; i < 14; i++) {
      later(900_000);
      expect((await login(ip(50 + i), email, 'wrong')).status).toBe(401);
    }
    const capped = await login(ip(70), email, PASSWORD);
    expect(capped.status).toBe(429);
    expect(Number(capped.retryAfter)).toBe(900);
    // A quiet hour starts the count again.
    later(60 * 60_000);
    expect((await login(ip(71), email, 'wrong')).status).toBe(401);
    expect((await login(ip(72), email, PASSWORD)).status).toBe(200);
  });

  it('counts an unknown e-mail the same way (no hint that the account does not exist), without mail', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++)
      statuses.push((await login(ip(100 + i), 'nobody@example.com', 'guess')).status);
    expect(statuses).toEqual([...Array(20).fill(401), 429, 429]);
    expect(sent.filter((m) => m.to === 'nobody@example.com')).toEqual([]);
  });

  it('30 parallel wrong passwords from 30 addresses: exactly 20 are checked', async () => {
    const other = await createTenant(ctx());
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => login(ip(200 + i), other.owner.email, `parallel ${i}`)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });
});

describe('one gated dashboard from many client addresses', () => {
  async function gated(): Promise<string> {
    const res = await api(ctx(), 'POST', '/dashboards', {
      token: tenant.owner.token,
      body: { name: 'Board report', isPublic: true, password: 'open sesame' },
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.id;
  }
  const access = (ip: string, id: string, password: string) =>
    from(ip, `/public/dashboards/${id}/access`, { password });

  it('30 wrong passwords from 30 addresses: 20 are checked, then 429; the owners are told once; the right password works after the wait', async () => {
    const id = await gated();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await access(ip(300 + i), id, `guess ${i}`)).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(10).fill(429));
    const notices = sent.filter((m) => m.subject.includes('"Board report"'));
    expect(notices.map((m) => m.to)).toEqual([tenant.owner.email]);
    expect(notices[0]!.text).toContain('20 attempts');
    expect(notices[0]!.text).toContain('at most 15 minutes');
    expect(notices[0]!.text).not.toContain(id);

    const early = await access(ip(400), id, 'open sesame');
    expect(early.status).toBe(429);
    expect(early.retryAfter).toBe('1');
    later(1_000);
    const right = await access(ip(401), id, 'open sesame');
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    // The right password gave its attempt back: the next wrong one is the 21st, which waits 2 s.
    expect((await access(ip(402), id, 'wrong')).status).toBe(401);
    expect((await access(ip(403), id, 'open sesame')).retryAfter).toBe('2');
    expect(sent.filter((m) => m.subject.includes('"Board report"'))).toHaveLength(1);
  });

  it('another dashboard keeps its own budget', async () => {
    const id = await gated();
    expect((await access(ip(500), id, 'open sesame')).status).toBe(200);
  });
});

describe('over real connections from 127.0.0.x source addresses', () => {
  it('30 wrong logins for one account, each from its own loopback address: 20 are checked, 10 are 429', async () => {
    const other = await createTenant(ctx());
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(address);
    const post = (localAddress: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ email: other.owner.email, password: 'not the password' });
        const req = request(
          {
            host: '127.0.0.1',
            port: Number(port),
            localAddress,
            method: 'POST',
            path: '/api/v1/auth/login',
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push(await post(`127.0.0.${i + 2}`));
    expect(statuses).toEqual([...Array(20).fill(401), ...Array(10).fill(429)]);
  });
});

describe('old budget rows', () => {
  it('are removed when a new run starts a day after their last attempt', async () => {
    const rows = (subject: string) =>
      database.system((tx) =>
        sql<{ n: number }>`select count(*)::int as n from attempt_budgets where subject = ${subject}`.execute(
          tx,
        ),
      );
    expect((await rows('nobody@example.com')).rows[0]!.n).toBe(1);
    later(25 * 60 * 60_000);
    expect((await login(ip(600), 'someone-new@example.com', 'guess')).status).toBe(401);
    expect((await rows('nobody@example.com')).rows[0]!.n).toBe(0);
    expect((await rows('someone-new@example.com')).rows[0]!.n).toBe(1);
  });
});
