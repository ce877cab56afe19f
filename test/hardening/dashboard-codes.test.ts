import { beforeAll, describe, expect, it } from 'vitest';
import {
  ATTEMPT_WINDOW_MS,
  MAX_CODE_FAILURES_PER_ADDRESS,
  MAX_FAILURES_PER_CODE,
} from '../../src/modules/dashboards/dashboards.access.ts';
import { api } from '../helpers/app.ts';
import { useClockTestApp } from '../helpers/clock-app.ts';
import { createTenant, type Tenant } from '../helpers/factories.ts';

/**
 * Issue 25, item 6: e-mail codes of gated dashboards cannot be guessed by spreading guesses over
 * many client addresses. Wrong codes are capped per (dashboard, address) and per code, the live
 * codes are voided past the cap, and an address has one live code at a time.
 */
const t = useClockTestApp(new Date('2025-06-15T12:00:00Z'));
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant(t);
});

async function gated(): Promise<string> {
  const res = await api(t, 'POST', '/dashboards', {
    token: tenant.owner.token,
    body: { name: 'Shared', isPublic: true, publicAccessDomains: ['example.com'] },
  });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.id;
}
const access = (id: string, body: Record<string, unknown>, ip = '127.0.0.1') =>
  t.app
    .inject({
      method: 'POST',
      url: `/api/v1/public/dashboards/${id}/access`,
      payload: body,
      remoteAddress: ip,
    })
    .then((r) => ({ status: r.statusCode, body: r.json() }));
const lastCode = () => /\b(\d{6})\b/.exec(t.sent.at(-1)!.text)![1]!;
/** A six-digit code that is not `code`. */
const wrong = (code: string, n: number) => String((Number(code) + 1 + n) % 1_000_000).padStart(6, '0');

describe('e-mail codes of a gated dashboard', () => {
  it('25 client addresses x 9 wrong codes: only the address budget of guesses is answered, then 429', async () => {
    const id = await gated();
    expect((await access(id, { email: 'ada@example.com' })).status).toBe(202);
    const code = lastCode();
    const statuses: number[] = [];
    for (let client = 0; client < 25; client++) {
      for (let guess = 0; guess < 9; guess++) {
        const res = await access(
          id,
          { email: 'ada@example.com', code: wrong(code, client * 9 + guess) },
          `10.9.${client}.1`,
        );
        statuses.push(res.status);
      }
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(MAX_CODE_FAILURES_PER_ADDRESS);
    expect(statuses.filter((s) => s === 429)).toHaveLength(225 - MAX_CODE_FAILURES_PER_ADDRESS);
    // The real code was voided past the cap: it does not open the dashboard even after the window.
    expect((await access(id, { email: 'ada@example.com', code }, '10.8.0.1')).status).toBe(429);
    t.now = new Date(t.now.getTime() + ATTEMPT_WINDOW_MS);
    expect((await access(id, { email: 'ada@example.com', code }, '10.8.0.1')).status).toBe(401);
    // A new code, asked for after the window, works.
    expect((await access(id, { email: 'ada@example.com' }, '10.8.0.2')).status).toBe(202);
    expect((await access(id, { email: 'ada@example.com', code: lastCode() }, '10.8.0.2')).status).toBe(200);
  });

  it(`a code survives ${MAX_FAILURES_PER_CODE - 1} wrong guesses, not ${MAX_FAILURES_PER_CODE}`, async () => {
    const id = await gated();
    await access(id, { email: 'bob@example.com' });
    const first = lastCode();
    for (let i = 0; i < MAX_FAILURES_PER_CODE - 1; i++) {
      expect(
        (await access(id, { email: 'bob@example.com', code: wrong(first, i) }, `10.7.${i}.1`)).status,
      ).toBe(401);
    }
    expect((await access(id, { email: 'bob@example.com', code: first })).status).toBe(200);

    await access(id, { email: 'bob@example.com' });
    const second = lastCode();
    for (let i = 0; i < MAX_FAILURES_PER_CODE; i++) {
      expect(
        (await access(id, { email: 'bob@example.com', code: wrong(second, i) }, `10.6.${i}.1`)).status,
      ).toBe(401);
    }
    expect((await access(id, { email: 'bob@example.com', code: second })).status).toBe(401);
  });

  it('an address has one live code: a new one voids the one sent before', async () => {
    const id = await gated();
    await access(id, { email: 'cy@example.com' });
    const older = lastCode();
    await access(id, { email: 'cy@example.com' });
    const newer = lastCode();
    if (older !== newer)
      expect((await access(id, { email: 'cy@example.com', code: older })).status).toBe(401);
    expect((await access(id, { email: 'cy@example.com', code: newer })).status).toBe(200);
  });
});
