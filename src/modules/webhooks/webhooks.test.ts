import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/helpers/app.ts';
import {
  activateForm,
  createForm,
  createSite,
  createTenant,
  type Tenant,
} from '../../../test/helpers/factories.ts';
import { createImportWorld } from '../../../test/helpers/import-world.ts';
import { useWebhookApp } from '../../../test/helpers/webhook-app.ts';
import { type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.ts';
import { shutdownSandbox } from '../../sandbox/index.ts';
import { emitEvent } from './index.ts';

const t = useWebhookApp();
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await shutdownSandbox();
});

/** Registers an endpoint at `path` for `events` as the tenant's owner; the receiver verifies with its secret. */
async function register(tenant: Tenant, path: string, events: string[]) {
  const res = await api(t, 'POST', '/webhooks', {
    token: tenant.owner.token,
    body: { url: receiver.url(path), events, description: 'test' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  receiver.secret(path, res.body.secret);
  return res.body as { id: string; secret: string };
}

/** A tenant with a monthly form active on one site for 2025. */
async function formWorld() {
  const tenant = await createTenant(t);
  const site = await createSite(t, tenant.organizationId);
  const form = await createForm(t, tenant, {
    elements: [{ key: 'amount', label: 'Amount', type: 'NUMBER' }],
  });
  await activateForm(t, tenant, form.id, [site], [2025]);
  return { tenant, site, form };
}

const submit = (tenant: Tenant, formId: string, siteId: string, value: number) =>
  api(t, 'POST', '/form-submissions', {
    token: tenant.owner.token,
    body: { formId, siteId, year: 2025, values: [{ elementKey: 'amount', periodUnit: 1, value }] },
  });

describe('webhook endpoints', () => {
  it('show the secret once, list without it, change, rotate and go', async () => {
    const tenant = await createTenant(t);
    const created = await register(tenant, '/crud', ['period.locked']);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const list = await api(t, 'GET', '/webhooks', { token: tenant.owner.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      expect.objectContaining({ id: created.id, enabled: true, events: ['period.locked'] }),
    ]);
    expect(JSON.stringify(list.body)).not.toContain(created.secret);

    const put = await api(t, 'PUT', `/webhooks/${created.id}`, {
      token: tenant.owner.token,
      body: { events: ['value.submitted', 'import.finished'], enabled: false },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      events: ['value.submitted', 'import.finished'],
      enabled: false,
      description: 'test',
    });

    const rotated = await api(t, 'POST', `/webhooks/${created.id}/rotate-secret`, {
      token: tenant.owner.token,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);

    const gone = await api(t, 'DELETE', `/webhooks/${created.id}`, { token: tenant.owner.token });
    expect(gone.status).toBe(200);
    const again = await api(t, 'DELETE', `/webhooks/${created.id}`, { token: tenant.owner.token });
    expect(again.status).toBe(404);
  });

  it('refuse a URL that is not http(s) and an unknown event, naming the field', async () => {
    const tenant = await createTenant(t);
    const ftp = await api(t, 'POST', '/webhooks', {
      token: tenant.owner.token,
      body: { url: 'ftp://example.com/x', events: ['period.locked'] },
    });
    expect(ftp.status).toBe(400);
    expect(ftp.body.issues[0].path).toBe('url');
    const event = await api(t, 'POST', '/webhooks', {
      token: tenant.owner.token,
      body: { url: 'https://example.com/x', events: ['value.deleted'] },
    });
    expect(event.status).toBe(400);
  });
});

describe('webhook deliveries', () => {
  it('a submission delivers once, signed per Standard Webhooks, with the values of the request', async () => {
    const { tenant, site, form } = await formWorld();
    await register(tenant, '/submitted', ['value.submitted']);
    const res = await submit(tenant, form.id, site, 42);
    expect(res.status).toBe(200);
    expect(receiver.at('/submitted')).toHaveLength(0);
    await t.app.jobs.drain();
    const got = receiver.at('/submitted');
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);
    expect(got[0]!.body).toMatchObject({
      type: 'value.submitted',
      data: { submissionId: res.body.id, formId: form.id, siteId: site, year: 2025 },
    });
    expect(got[0]!.body.data.values).toEqual([
      expect.objectContaining({
        id: res.body.values[0].formElementSubmissionId,
        elementKey: 'amount',
        value: 42,
      }),
    ]);
    // Nothing more is due: no second delivery.
    await t.app.jobs.drain();
    expect(receiver.at('/submitted')).toHaveLength(1);
  });

  it('a review delivers once', async () => {
    const { tenant, site, form } = await formWorld();
    const stored = await submit(tenant, form.id, site, 7);
    await register(tenant, '/reviewed', ['value.reviewed']);
    const valueId = stored.body.values[0].formElementSubmissionId;
    const review = await api(t, 'POST', `/form-submissions/values/${valueId}/review`, {
      token: tenant.owner.token,
      body: { status: 'APPROVED', comment: 'fine' },
    });
    expect(review.status, JSON.stringify(review.body)).toBe(200);
    await t.app.jobs.drain();
    const got = receiver.at('/reviewed');
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);
    expect(got[0]!.body.data).toMatchObject({ id: valueId, status: 'APPROVED', value: 7, comment: 'fine' });
  });

  it('an executed import delivers import.finished once (a preview none)', async () => {
    const w = await createImportWorld(t);
    await register(w.tenant, '/imported', ['import.finished']);
    const sheets = [
      { name: 'Electricity', rows: [{ Site: 'A', Year: 2025, Month: 6, Amount: 5, Unit: 'kWh' }] },
    ];
    expect((await w.run({ sheets })).status).toBe(200);
    const done = await w.run({ mode: 'execute', sheets });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    await t.app.jobs.drain();
    const got = receiver.at('/imported');
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);
    expect(got[0]!.body.data).toMatchObject({
      runId: done.body.run.id,
      status: 'completed',
      counts: { imported: 1 },
    });
  });

  it('a receiver that fails three times gets the delivery on the fourth attempt, after the back-off', async () => {
    const { tenant, site, form } = await formWorld();
    const endpoint = await register(tenant, '/flaky', ['value.submitted']);
    receiver.fail('/flaky', 500, 503, 302);
    await submit(tenant, form.id, site, 1);
    await t.app.jobs.drain();
    expect(receiver.at('/flaky')).toHaveLength(1);
    // Not due again before its back-off (5 s, then 20 s, then 80 s).
    for (const [n, wait] of [5, 20, 80].entries()) {
      t.advance((wait - 1) * 1000);
      await t.app.jobs.drain();
      expect(receiver.at('/flaky')).toHaveLength(n + 1);
      t.advance(1000);
      await t.app.jobs.drain();
      expect(receiver.at('/flaky')).toHaveLength(n + 2);
    }
    const got = receiver.at('/flaky');
    expect(got).toHaveLength(4);
    expect(new Set(got.map((r) => r.id)).size).toBe(1);
    expect(got.every((r) => r.verified)).toBe(true);
    const log = await api(t, 'GET', `/webhooks/${endpoint.id}/deliveries`, { token: tenant.owner.token });
    expect(log.status).toBe(200);
    expect(log.body.items).toEqual([
      expect.objectContaining({ id: got[0]!.id, status: 'delivered', attempts: 4, lastStatusCode: 200 }),
    ]);

    const again = await api(t, 'POST', `/webhooks/${endpoint.id}/deliveries/${got[0]!.id}/redeliver`, {
      token: tenant.owner.token,
    });
    expect(again.status).toBe(202);
    await t.app.jobs.drain();
    expect(receiver.at('/flaky').map((r) => r.id)).toEqual(Array(5).fill(got[0]!.id));
  });

  it('a receiver that keeps failing is disabled after the last attempt, over a day later, and its owner told', async () => {
    const { tenant, site, form } = await formWorld();
    const endpoint = await register(tenant, '/down', ['value.submitted']);
    receiver.fail('/down', ...Array(20).fill(500));
    await submit(tenant, form.id, site, 1);
    const start = t.now();
    for (let i = 0; i < 12; i++) {
      await t.app.jobs.drain();
      t.advance(13 * 3_600_000);
    }
    expect(receiver.at('/down')).toHaveLength(10);
    const list = await api(t, 'GET', '/webhooks', { token: tenant.owner.token });
    expect(list.body[0]).toMatchObject({ id: endpoint.id, enabled: false });
    const log = await api(t, 'GET', `/webhooks/${endpoint.id}/deliveries`, { token: tenant.owner.token });
    expect(log.body.items[0]).toMatchObject({ status: 'failed', attempts: 10, lastStatusCode: 500 });
    const span = Date.parse(log.body.items[0].lastAttemptAt) - start.getTime();
    expect(span).toBeGreaterThan(24 * 3_600_000);
    expect(t.sent.filter((m) => m.to === tenant.owner.email)).toHaveLength(1);
    // A disabled endpoint gets nothing, and re-delivery asks to turn it on first.
    await submit(tenant, form.id, site, 2);
    await t.app.jobs.drain();
    expect(receiver.at('/down')).toHaveLength(10);
    const redeliver = await api(
      t,
      'POST',
      `/webhooks/${endpoint.id}/deliveries/${log.body.items[0].id}/redeliver`,
      { token: tenant.owner.token },
    );
    expect(redeliver.status).toBe(409);
  });

  it('a lock delivers period.locked; an endpoint whose owner is no longer one stops', async () => {
    const { tenant, site, form } = await formWorld();
    const endpoint = await register(tenant, '/locked', ['period.locked']);
    const lock = await api(t, 'POST', '/form-locks', {
      token: tenant.owner.token,
      body: { formId: form.id, year: 2025, periodUnit: 1, siteIds: [site] },
    });
    expect(lock.status, JSON.stringify(lock.body)).toBe(200);
    await t.app.jobs.drain();
    expect(receiver.at('/locked')).toHaveLength(1);
    expect(receiver.at('/locked')[0]!.body.data).toMatchObject({
      lockId: lock.body[0].id,
      formId: form.id,
      siteId: site,
    });

    // Locking what is already locked answers that lock again, but announces nothing new.
    const again = await api(t, 'POST', '/form-locks', {
      token: tenant.owner.token,
      body: { formId: form.id, year: 2025, periodUnit: 1, siteIds: [site] },
    });
    expect(again.status).toBe(200);
    expect(again.body.map((l: { id: string }) => l.id)).toEqual([lock.body[0].id]);
    await t.app.jobs.drain();
    expect(receiver.at('/locked')).toHaveLength(1);

    // The owner becomes a manager: the next event is not sent, and the endpoint is disabled.
    await t.database.tenant(tenant.organizationId, async (tx) => {
      await tx
        .updateTable('memberships')
        .set({ role: 'MANAGER' })
        .where('user_id', '=', tenant.owner.userId)
        .where('organization_id', '=', tenant.organizationId)
        .execute();
      await emitEvent(tx, tenant.organizationId, 'period.locked', { lockId: 'x' });
    });
    await t.app.jobs.drain();
    expect(receiver.at('/locked')).toHaveLength(1);
    const row = await t.database.tenant(tenant.organizationId, (tx) =>
      sql<{
        enabled: boolean;
        disabled_reason: string;
      }>`SELECT enabled, disabled_reason FROM webhook_endpoints WHERE id = ${endpoint.id}`.execute(tx),
    );
    expect(row.rows[0]).toMatchObject({
      enabled: false,
      disabled_reason: expect.stringContaining('no longer an owner'),
    });
  });
});
