import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, useTestApp } from '../../../test/helpers/app.ts';
import {
  activateForm,
  assignSites,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { readOutbox } from '../../mail/outbox.ts';
import { queueRepository } from './submissions.queue.repository.ts';
import { MAX_REJECTION_MAILS_PER_DAY } from './submissions.queue.ts';

/**
 * Issue 42, items 4 and 5: the review queue across forms and sites (oldest first, keyset pages,
 * site limits) and bulk reviews (all or nothing, another tenant's id a 404, one rejection e-mail
 * per person and request within a daily cap, also under parallel calls).
 */
const dataDir = `/tmp/sdcs-queue-${process.pid}-${randomBytes(4).toString('hex')}`;
const t = useTestApp({ dataDir, publicUrl: 'https://sdcs.example.org' });
/** The outbox once the queued e-mails were sent (decision 232). */
const outbox = async () => {
  await t.app.jobs.drain();
  return readOutbox(`${dataDir}/outbox`);
};

let tenant: Tenant;
let other: Tenant;
let north: string;
let south: string;
let form: { id: string };
let otherValue: string;
/** Value ids by name, in the order they were recorded. */
const v = {} as { janElectricity: string; janSupplier: string; southJan: string; febElectricity: string };

const send = async (token: string, siteId: string, values: unknown[], formId = form.id) => {
  const res = await api(t, 'POST', '/form-submissions', {
    token,
    body: { formId, siteId, year: 2025, values },
  });
  expect(res.status).toBe(200);
  return res.body.values as { formElementSubmissionId: string; elementKey: string; periodUnit: number }[];
};
const queue = (query: Record<string, unknown>, token = tenant.manager.token) =>
  api(t, 'GET', `/form-submissions/values?${new URLSearchParams(query as Record<string, string>)}`, {
    token,
  });
const bulk = (body: unknown, token = tenant.manager.token) =>
  api(t, 'POST', '/form-submissions/values/review', { token, body });
const statusOf = async (id: string) =>
  t.database.system(async (tx) => {
    const row = await tx
      .selectFrom('form_element_submissions')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.status;
  });

beforeAll(async () => {
  tenant = await createTenant(t);
  other = await createTenant(t);
  north = await createSite(t, tenant.organizationId, { name: 'North plant' });
  south = await createSite(t, tenant.organizationId, { name: 'South plant' });
  await assignSites(t, tenant.organizationId, tenant.collector.userId, [north, south]);
  // The manager reviews the north site only.
  await assignSites(t, tenant.organizationId, tenant.manager.userId, [north]);
  form = await createForm(t, tenant, {
    name: 'Energy',
    periodType: 'MONTHLY',
    elements: [
      { key: 'electricity', label: 'Electricity', type: 'NUMBER' },
      {
        key: 'supplier',
        label: 'Supplier',
        type: 'SELECT',
        options: [
          { label: 'Grid power', value: 'grid' },
          { label: 'Solar panels', value: 'solar' },
        ],
      },
    ],
  });
  await activateForm(t, tenant, form.id, [north, south], [2025]);
  const token = tenant.collector.token;
  // Recorded one request after the other: January north, January south, February north.
  const jan = await send(token, north, [
    { elementKey: 'electricity', periodUnit: 1, value: 100 },
    { elementKey: 'supplier', periodUnit: 1, value: 'solar' },
  ]);
  v.janElectricity = jan[0]!.formElementSubmissionId;
  v.janSupplier = jan[1]!.formElementSubmissionId;
  v.southJan = (
    await send(token, south, [{ elementKey: 'electricity', periodUnit: 1, value: 7 }])
  )[0]!.formElementSubmissionId;
  v.febElectricity = (
    await send(token, north, [{ elementKey: 'electricity', periodUnit: 2, value: 120 }])
  )[0]!.formElementSubmissionId;

  const otherSite = await createSite(t, other.organizationId);
  await assignSites(t, other.organizationId, other.collector.userId, [otherSite]);
  const otherForm = await createForm(t, other);
  await activateForm(t, other, otherForm.id, [otherSite], [2025]);
  const res = await api(t, 'POST', '/form-submissions', {
    token: other.collector.token,
    body: {
      formId: otherForm.id,
      siteId: otherSite,
      year: 2025,
      values: [{ elementKey: 'amount', periodUnit: 1, value: 1 }],
    },
  });
  otherValue = res.body.values[0].formElementSubmissionId;
});

describe('GET /form-submissions/values (the review queue)', () => {
  it('lists what awaits review on the manager’s sites only, oldest first, with what a reviewer reads', async () => {
    const res = await queue({ status: 'COMPLETED' });
    expect(res.status).toBe(200);
    // January's two values were recorded together (ordered by id), then February; south is not the manager's.
    const jan = [v.janElectricity, v.janSupplier].sort();
    expect(res.body.items.map((i: any) => i.formElementSubmissionId)).toEqual([...jan, v.febElectricity]);
    expect(res.body.total).toBe(3);
    expect(res.body.nextCursor).toBeNull();
    const supplier = res.body.items.find((i: any) => i.formElementSubmissionId === v.janSupplier);
    expect(supplier).toMatchObject({
      formId: form.id,
      formName: 'Energy',
      periodType: 'MONTHLY',
      siteId: north,
      siteName: 'North plant',
      year: 2025,
      periodUnit: 1,
      elementKey: 'supplier',
      elementLabel: 'Supplier',
      elementType: 'SELECT',
      status: 'COMPLETED',
      value: 'solar',
      userId: tenant.collector.userId,
      lastReview: null,
      file: null,
    });
    // The owner reads every site: the south value is there, between January north and February.
    const all = await queue({ status: 'COMPLETED' }, tenant.owner.token);
    expect(all.body.items.map((i: any) => i.formElementSubmissionId)).toEqual([
      ...jan,
      v.southJan,
      v.febElectricity,
    ]);
  });

  it('walks keyset pages without overlap or gap, and filters by form, site, year and period', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 10; i++) {
      const res = await queue(
        { status: 'COMPLETED', limit: 1, ...(after ? { after } : {}) },
        tenant.owner.token,
      );
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(4);
      seen.push(...res.body.items.map((x: any) => x.formElementSubmissionId));
      after = res.body.nextCursor ?? undefined;
      if (!after) break;
    }
    expect(seen).toEqual([...[v.janElectricity, v.janSupplier].sort(), v.southJan, v.febElectricity]);
    const feb = await queue({ formId: form.id, siteId: north, year: 2025, periodUnit: 2 });
    expect(feb.body.items.map((x: any) => x.formElementSubmissionId)).toEqual([v.febElectricity]);
    expect((await queue({ year: 2024 })).body.total).toBe(0);
    // The manager asking for the south site sees nothing of it.
    expect((await queue({ siteId: south })).body.total).toBe(0);
  });

  it('refuses a cursor it did not write with a 400 naming `after`', async () => {
    const res = await queue({ after: 'bm90LWEtY3Vyc29y' });
    expect(res.status).toBe(400);
    expect(res.body.issues[0].path).toBe('after');
  });
});

describe('POST /form-submissions/values/review', () => {
  it('is all or nothing: a value of a site the manager cannot read, or of another tenant, is a 404 and nothing changes', async () => {
    const south404 = await bulk({ ids: [v.febElectricity, v.southJan], status: 'APPROVED' });
    expect(south404.status).toBe(404);
    expect(south404.body.issues[0]).toMatchObject({ path: 'ids.1', code: 'review.valueNotFound' });
    const tenant404 = await bulk({ ids: [v.febElectricity, otherValue], status: 'APPROVED' });
    expect(tenant404.status).toBe(404);
    expect(await statusOf(v.febElectricity)).toBe('COMPLETED');
    expect(await statusOf(otherValue)).toBe('COMPLETED');
    // Collectors and viewers do not review.
    expect((await bulk({ ids: [v.febElectricity], status: 'APPROVED' }, tenant.collector.token)).status).toBe(
      403,
    );
    expect((await bulk({ ids: [v.febElectricity], status: 'APPROVED' }, tenant.viewer.token)).status).toBe(
      403,
    );
  });

  it('approves a set in one call, records each review, and leaves values already approved alone', async () => {
    const res = await bulk({
      ids: [v.janElectricity, v.janSupplier],
      status: 'APPROVED',
      comment: 'Matches the invoice',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'APPROVED', reviewed: 2, unchanged: 0, mailed: 0, notMailed: 0 });
    expect(await statusOf(v.janSupplier)).toBe('APPROVED');
    const again = await bulk({ ids: [v.janElectricity, v.janSupplier], status: 'APPROVED' });
    expect(again.body).toMatchObject({ reviewed: 0, unchanged: 2 });
    const history = await api(t, 'GET', `/form-submissions/values/${v.janSupplier}/history`, {
      token: tenant.manager.token,
    });
    expect(history.body.filter((h: any) => h.action === 'REVIEW')).toHaveLength(1);
    expect(
      (await queue({ status: 'COMPLETED' })).body.items.map((i: any) => i.formElementSubmissionId),
    ).toEqual([v.febElectricity]);
    const approved = await queue({ status: 'APPROVED' });
    expect(approved.body.items[0].lastReview).toMatchObject({
      status: 'APPROVED',
      comment: 'Matches the invoice',
    });
  });

  it('needs a comment to reject, then e-mails the collector once, in plain words with the period’s link', async () => {
    const blank = await bulk({ ids: [v.febElectricity], status: 'REJECTED', comment: '  ' });
    expect(blank.status).toBe(400);
    expect(blank.body.issues[0]).toMatchObject({ path: 'comment', code: 'review.commentRequired' });
    const before = (await outbox()).length;
    const res = await bulk({
      ids: [v.febElectricity, v.janSupplier],
      status: 'REJECTED',
      comment: 'February looks ten times too high',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'REJECTED', reviewed: 2, unchanged: 0, mailed: 1, notMailed: 0 });
    const mails = (await outbox()).slice(before);
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.to).toBe(tenant.collector.email);
    expect(mail.subject).toBe('Please correct 2 values in 2 periods');
    expect(mail.text).toContain('Comment: February looks ten times too high');
    expect(mail.text).toContain('Energy, North plant, January 2025:\n- Supplier (entered: Solar panels)');
    expect(mail.text).toContain('Energy, North plant, February 2025:\n- Electricity (entered: 120)');
    expect(mail.text).toContain(`https://sdcs.example.org/app/enter/${form.id}/${north}/2025/2`);
    expect(mail.text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?!\/)/);
    const rejected = await queue({ status: 'REJECTED' }, tenant.collector.token);
    expect(rejected.body.total).toBe(2);
    expect(rejected.body.items[0].lastReview).toMatchObject({
      status: 'REJECTED',
      comment: 'February looks ten times too high',
    });
  });

  it('stops e-mailing a person at the daily cap, also when rejections run in parallel', async () => {
    const token = tenant.collector.token;
    const march = await send(token, north, [
      { elementKey: 'electricity', periodUnit: 3, value: 1 },
      { elementKey: 'supplier', periodUnit: 4, value: 'grid' },
    ]);
    const [a, b] = march.map((x) => x.formElementSubmissionId);
    // One rejection e-mail short of the cap in the last 24 hours.
    const sentSoFar = await t.database.system(async (tx) => {
      const r = await sql<{ n: string }>`select count(*)::text as n from review_mails
        where organization_id = ${tenant.organizationId} and user_id = ${tenant.collector.userId}`.execute(
        tx,
      );
      return Number(r.rows[0]!.n);
    });
    await t.database.system(async (tx) => {
      for (let i = sentSoFar; i < MAX_REJECTION_MAILS_PER_DAY - 1; i++) {
        await sql`insert into review_mails (organization_id, user_id, sent_by, value_count, sent_at)
          values (${tenant.organizationId}, ${tenant.collector.userId}, ${tenant.manager.userId}, 1, now())`.execute(
          tx,
        );
      }
    });
    const before = (await outbox()).length;
    const [first, second] = await Promise.all([
      bulk({ ids: [a], status: 'REJECTED', comment: 'Check March' }),
      bulk({ ids: [b], status: 'REJECTED', comment: 'Check April' }),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.body.mailed + second.body.mailed).toBe(1);
    expect(first.body.notMailed + second.body.notMailed).toBe(1);
    expect((await outbox()).length - before).toBe(1);
    expect(await statusOf(a ?? '')).toBe('REJECTED');
    expect(await statusOf(b ?? '')).toBe('REJECTED');
  });

  it('counts a person’s rejection e-mails under their lock: a second count waits for the first e-mail’s record', async () => {
    // The parallel calls above are also serialized by the values' own row locks; this isolates
    // the e-mail log: without the per-person lock, PostgreSQL's second count would read 0.
    const org = tenant.organizationId;
    const person = tenant.viewer.userId;
    const since = new Date(Date.now() - 86_400_000);
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let counted: () => void = () => undefined;
    const firstCounted = new Promise<void>((r) => {
      counted = r;
    });
    const first = t.database.system(async (tx) => {
      const n = await queueRepository.lockAndCountMails(tx, org, [person], since);
      await queueRepository.logMail(tx, org, {
        userId: person,
        sentBy: tenant.manager.userId,
        valueCount: 1,
        at: new Date(),
      });
      counted();
      await held;
      return n.get(person) ?? 0;
    });
    await firstCounted;
    const second = t.database.system(
      async (tx) => (await queueRepository.lockAndCountMails(tx, org, [person], since)).get(person) ?? 0,
    );
    await new Promise((r) => setTimeout(r, 200));
    release();
    expect(await first).toBe(0);
    expect(await second).toBe(1);
  });
});
