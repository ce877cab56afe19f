import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { api } from '../../../test/helpers/app.ts';
import { activateForm, createForm, createSite, createTenant } from '../../../test/helpers/factories.ts';
import { useWebhookApp } from '../../../test/helpers/webhook-app.ts';
import { MailDeliveryError, type MailMessage } from '../../mail/mailer.ts';
import { JobRunner, MAIL_JOB, mailHandler } from './index.ts';

/** Decision 232: rejection and reminder e-mails are jobs, sent once by one worker, retried with back-off. */
const t = useWebhookApp();

/** A value the owner recorded and rejects in a bulk review: one rejection e-mail, queued. */
async function rejectOne() {
  const tenant = await createTenant(t);
  const site = await createSite(t, tenant.organizationId);
  const form = await createForm(t, tenant, {
    elements: [{ key: 'amount', label: 'Amount', type: 'NUMBER' }],
  });
  await activateForm(t, tenant, form.id, [site], [2025]);
  const stored = await api(t, 'POST', '/form-submissions', {
    token: tenant.owner.token,
    body: {
      formId: form.id,
      siteId: site,
      year: 2025,
      values: [{ elementKey: 'amount', periodUnit: 1, value: 9 }],
    },
  });
  expect(stored.status).toBe(200);
  const review = await api(t, 'POST', '/form-submissions/values/review', {
    token: tenant.owner.token,
    body: { ids: [stored.body.values[0].formElementSubmissionId], status: 'REJECTED', comment: 'Too high' },
  });
  expect(review.status, JSON.stringify(review.body)).toBe(200);
  expect(review.body).toMatchObject({ reviewed: 1, mailed: 1 });
  return tenant;
}

const mailJobs = (email: string) =>
  t.database.system((tx) =>
    sql<{ state: string; attempts: number; last_error: string | null }>`
      SELECT state, attempts, last_error FROM jobs WHERE kind = ${MAIL_JOB} AND payload->'message'->>'to' = ${email}`.execute(
      tx,
    ),
  );

describe('e-mails on the job queue', () => {
  it('a rejection e-mail is a job, sent once even when two workers run at the same time', async () => {
    const tenant = await rejectOne();
    // Nothing is sent by the request itself: the e-mail waits in the queue.
    expect(t.sent.filter((m) => m.to === tenant.owner.email)).toHaveLength(0);
    expect((await mailJobs(tenant.owner.email)).rows).toEqual([
      expect.objectContaining({ state: 'queued', attempts: 0 }),
    ]);
    const other = new JobRunner(t.database, t.now, { worker: 'second' }).handle(
      MAIL_JOB,
      mailHandler({ kind: 'test', send: async (m) => void t.sent.push(m) }),
    );
    await Promise.all([t.app.jobs.drain(), other.drain(), t.app.jobs.drain(), other.drain()]);
    const mails = t.sent.filter((m) => m.to === tenant.owner.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain('Too high');
    expect((await mailJobs(tenant.owner.email)).rows).toEqual([
      expect.objectContaining({ state: 'done', attempts: 1 }),
    ]);
  });

  it('a mail driver that fails is tried again after the back-off, and the e-mail sent once', async () => {
    const tenant = await rejectOne();
    const sent: MailMessage[] = [];
    let failures = 2;
    const flaky = new JobRunner(t.database, t.now, { worker: 'flaky' }).handle(
      MAIL_JOB,
      mailHandler({
        kind: 'test',
        send: async (m) => {
          if (failures-- > 0) throw new MailDeliveryError('relay down');
          sent.push(m);
        },
      }),
    );
    await flaky.drain();
    expect(sent).toHaveLength(0);
    expect((await mailJobs(tenant.owner.email)).rows).toEqual([
      expect.objectContaining({ state: 'queued', attempts: 1, last_error: 'relay down' }),
    ]);
    // Not again before its back-off (5 s, then 20 s).
    t.advance(4_000);
    await flaky.drain();
    expect((await mailJobs(tenant.owner.email)).rows[0]!.attempts).toBe(1);
    t.advance(1_000);
    await flaky.drain();
    expect((await mailJobs(tenant.owner.email)).rows[0]!.attempts).toBe(2);
    t.advance(20_000);
    await flaky.drain();
    expect(sent.map((m) => m.to)).toEqual([tenant.owner.email]);
    expect((await mailJobs(tenant.owner.email)).rows).toEqual([
      expect.objectContaining({ state: 'done', attempts: 3 }),
    ]);
    await flaky.drain();
    expect(sent).toHaveLength(1);
  });
});
