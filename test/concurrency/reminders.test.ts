import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { Database } from '../../src/db/client.ts';
import { OutboxMailer, readOutbox } from '../../src/mail/outbox.ts';
import { MAX_REMINDERS_PER_DAY } from '../../src/modules/completeness/completeness.service.ts';
import { api, openTestDatabase, type TestContext, testConfig } from '../helpers/app.ts';
import {
  activateForm,
  assignSites,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../helpers/factories.ts';

/**
 * Issue 25, items 5 and 7: reminders written to the `.eml` outbox. A form name carrying CR/LF
 * does not add a header; parallel reminder calls mail a collector once; a collector gets at most
 * MAX_REMINDERS_PER_DAY reminders a day however many periods are asked about.
 */
const outbox = `/tmp/sdcs-reminders-${process.pid}-${randomBytes(4).toString('hex')}`;
const now = new Date('2024-06-01T00:00:00Z');
let t: TestContext;
/** PostgreSQL: a second app (its own connection pool) on the same database, as a second process. */
let second: { app: FastifyInstance; database: Database } | undefined;
let drop: () => Promise<void>;
let tenant: Tenant;
let site: string;
const HOSTILE = 'Rem <b>x</b>\r\nBcc: evil@evil.org';
let hostile: { id: string };
let monthly: { id: string };

beforeAll(async () => {
  const opened = await openTestDatabase();
  drop = opened.drop;
  const config = testConfig();
  const app: FastifyInstance = await buildApp({
    database: opened.database,
    config,
    clock: () => now,
    mailer: new OutboxMailer(outbox, 'SDCS <no-reply@sdcs.test>'),
  });
  await app.ready();
  t = { app, database: opened.database, config };
  if (opened.url) {
    const database = await Database.open({ databaseUrl: opened.url });
    const other = await buildApp({
      database,
      config,
      clock: () => now,
      mailer: new OutboxMailer(outbox, 'SDCS <no-reply@sdcs.test>'),
    });
    await other.ready();
    second = { app: other, database };
  }
  tenant = await createTenant(t);
  site = await createSite(t, tenant.organizationId, { name: 'Plant' });
  await assignSites(t, tenant.organizationId, tenant.manager.userId, [site]);
  await assignSites(t, tenant.organizationId, tenant.collector.userId, [site]);
  const elements = [{ key: 'energy', label: 'Energy', type: 'NUMBER', required: true }];
  hostile = await createForm(t, tenant, { name: HOSTILE, elements });
  monthly = await createForm(t, tenant, { name: 'Monthly', elements });
  await activateForm(t, tenant, hostile.id, [site], [2024]);
  await activateForm(t, tenant, monthly.id, [site], [2023, 2024]);
});
afterAll(async () => {
  await second?.app.close();
  await second?.database.close();
  await t.app.close();
  await drop();
});

const remind = (formId: string, year: number, periodUnit: number, via = t) =>
  api(via, 'POST', '/completeness/reminders', {
    token: tenant.manager.token,
    body: { formId, year, periodUnit },
  });

/** The e-mails to `email` in the outbox, once the queued ones were sent (decision 232). */
const mailsTo = async (email: string) => {
  await t.app.jobs.drain();
  return (await readOutbox(outbox)).filter((m) => m.to === email);
};

describe('reminders in the .eml outbox', () => {
  it('a form name with CR/LF stays inside the Subject header: no Bcc line', async () => {
    const res = await remind(hostile.id, 2024, 1);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await t.app.jobs.drain();
    const [file] = (await readdir(outbox)).filter((f) => f.endsWith('.eml'));
    const raw = await readFile(join(outbox, file!), 'utf8');
    const head = raw.slice(0, raw.indexOf('\r\n\r\n'));
    expect(head).not.toMatch(/^Bcc:/im);
    // Every header line is a header or a folded continuation (starting with white space).
    for (const line of head.split('\r\n')) expect(line).toMatch(/^([A-Za-z-]+: |[ \t])/);
    const [mail] = await mailsTo(tenant.collector.email);
    expect(mail!.subject).toBe('Reminder: Rem <b>x</b> Bcc: evil@evil.org, January 2024');
  });

  it('10 parallel reminders of one period mail the collector once', async () => {
    const before = (await mailsTo(tenant.collector.email)).length;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        remind(monthly.id, 2024, 2, second && i % 2 === 1 ? { ...t, app: second.app } : t),
      ),
    );
    for (const r of results) expect(r.status).toBe(200);
    expect(results.filter((r) => r.body.reminded === 1)).toHaveLength(1);
    expect(results.filter((r) => r.body.alreadyReminded === 1)).toHaveLength(9);
    expect((await mailsTo(tenant.collector.email)).length - before).toBe(1);
  });

  it(`reminders over many periods stop at ${MAX_REMINDERS_PER_DAY} a day per person`, async () => {
    // So far today: January 2024 (hostile form) and February 2024 (monthly): 2 of the day's 5.
    const calls = [];
    for (const year of [2023, 2024])
      for (let month = 1; month <= 12; month++) calls.push(await remind(monthly.id, year, month));
    expect(calls.every((r) => r.status === 200)).toBe(true);
    expect(calls.filter((r) => r.body.reminded === 1)).toHaveLength(MAX_REMINDERS_PER_DAY - 2);
    expect(await mailsTo(tenant.collector.email)).toHaveLength(MAX_REMINDERS_PER_DAY);
  });
});
