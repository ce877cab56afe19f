import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { MailMessage } from '../../src/mail/mailer.ts';
import { openTestDatabase, type TestContext, testConfig } from './app.ts';

/** A test app whose clock the test sets (`ctx.now`) and whose e-mails it reads (`ctx.sent`). */
export interface ClockTestContext extends TestContext {
  now: Date;
  sent: MailMessage[];
}

export function useClockTestApp(start: Date, overrides: Partial<Config> = {}): ClockTestContext {
  const ctx = { now: start, sent: [] as MailMessage[] } as ClockTestContext;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await openTestDatabase();
    drop = opened.drop;
    ctx.database = opened.database;
    ctx.config = testConfig(overrides);
    ctx.app = await buildApp({
      database: ctx.database,
      config: ctx.config,
      clock: () => ctx.now,
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
