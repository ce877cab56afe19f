import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { MailMessage } from '../../src/mail/mailer.ts';
import { openTestDatabase, type TestContext, testConfig } from './app.ts';

/**
 * A test app for background work: its clock runs with the wall clock plus an offset the test
 * moves on (`advance`), so back-offs pass without waiting and signatures stay within the
 * receiver's tolerance for short moves; its e-mails are kept (`sent`). Webhooks may reach
 * 127.0.0.1 (the receiver the test starts).
 */
export interface WebhookTestContext extends TestContext {
  sent: MailMessage[];
  now: () => Date;
  advance: (ms: number) => void;
}

export function useWebhookApp(overrides: Partial<Config> = {}): WebhookTestContext {
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  const ctx = {
    sent: [] as MailMessage[],
    now,
    advance: (ms: number) => {
      offset += ms;
    },
  } as WebhookTestContext;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await openTestDatabase();
    drop = opened.drop;
    ctx.database = opened.database;
    if (opened.url) ctx.url = opened.url;
    ctx.config = testConfig({ webhooksAllowPrivate: true, webhooksTimeoutMs: 5_000, ...overrides });
    ctx.app = await buildApp({
      database: ctx.database,
      config: ctx.config,
      clock: now,
      mailer: {
        kind: 'test',
        send: async (message) => {
          ctx.sent.push(message);
        },
      },
    });
    await ctx.app.ready();
  });
  afterAll(async () => {
    await ctx.app?.close();
    await drop?.();
  });
  return ctx;
}
