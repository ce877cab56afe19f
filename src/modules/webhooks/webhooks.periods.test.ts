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

const t = useWebhookApp();
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await shutdownSandbox();
});

async function register(tenant: Tenant, path: string, events: string[]) {
  const res = await api(t, 'POST', '/webhooks', {
    token: tenant.owner.token,
    body: { url: receiver.url(path), events, description: 'test' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  receiver.secret(path, res.body.secret);
}

/** A monthly form of two elements (`a`, `b`, both expected) active on one site for 2025. */
async function twoElementWorld() {
  const tenant = await createTenant(t);
  const site = await createSite(t, tenant.organizationId);
  const form = await createForm(t, tenant, {
    elements: [
      { key: 'a', label: 'A', type: 'NUMBER' },
      { key: 'b', label: 'B', type: 'NUMBER' },
    ],
  });
  await activateForm(t, tenant, form.id, [site], [2025]);
  const submit = async (values: Record<string, number>, periodUnit = 1) => {
    const res = await api(t, 'POST', '/form-submissions', {
      token: tenant.owner.token,
      body: {
        formId: form.id,
        siteId: site,
        year: 2025,
        values: Object.entries(values).map(([elementKey, value]) => ({ elementKey, periodUnit, value })),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { values: { formElementSubmissionId: string; elementKey: string }[] };
  };
  return { tenant, site, form, submit };
}

const delivered = async (path: string) => {
  await t.app.jobs.drain();
  return receiver.at(path);
};

describe('period.completed', () => {
  it('a submission completing a period delivers one event; a later edit none', async () => {
    const { tenant, site, form, submit } = await twoElementWorld();
    await register(tenant, '/completed', ['period.completed']);
    await submit({ a: 1 });
    expect(await delivered('/completed')).toHaveLength(0);

    const second = await submit({ b: 2 });
    const got = await delivered('/completed');
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);
    expect(got[0]!.body).toMatchObject({
      type: 'period.completed',
      data: { formId: form.id, siteId: site, year: 2025, periodUnit: 1, status: 'COMPLETE', onTime: true },
    });
    expect(got[0]!.body.data.values).toEqual([
      expect.objectContaining({ elementKey: 'a', value: 1, numericValue: 1 }),
      expect.objectContaining({ elementKey: 'b', value: 2, id: second.values[0]!.formElementSubmissionId }),
    ]);

    // Editing a complete period, or completing another one, adds no event for this one.
    await submit({ a: 3, b: 4 });
    expect(await delivered('/completed')).toHaveLength(1);
    await submit({ a: 5, b: 6 }, 2);
    const both = await delivered('/completed');
    expect(both.map((r) => r.body.data.periodUnit)).toEqual([1, 2]);
  });

  it('a period made incomplete by a rejection and complete again by an approval delivers again', async () => {
    const { tenant, submit } = await twoElementWorld();
    const stored = await submit({ a: 1, b: 2 });
    await register(tenant, '/again', ['period.completed']);
    const id = stored.values[0]!.formElementSubmissionId;
    const review = (status: string) =>
      api(t, 'POST', `/form-submissions/values/${id}/review`, {
        token: tenant.owner.token,
        body: { status, comment: status },
      });
    expect((await review('REJECTED')).status).toBe(200);
    expect(await delivered('/again')).toHaveLength(0);
    expect((await review('APPROVED')).status).toBe(200);
    const got = await delivered('/again');
    expect(got).toHaveLength(1);
    expect(got[0]!.body.data).toMatchObject({ periodUnit: 1, status: 'COMPLETE' });
  });

  it('an import completing a period delivers it', async () => {
    const w = await createImportWorld(t);
    // Only the electricity is expected: one imported row completes its site's month.
    await t.database.tenant(w.tenant.organizationId, (tx) =>
      sql`UPDATE form_elements SET required = (key = 'elec') WHERE form_id = ${w.form.id}`.execute(tx),
    );
    await register(w.tenant, '/imported', ['period.completed']);
    const sheets = [
      { name: 'Electricity', rows: [{ Site: 'A', Year: 2025, Month: 6, Amount: 5, Unit: 'kWh' }] },
    ];
    const done = await w.run({ mode: 'execute', sheets });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const got = await delivered('/imported');
    expect(got).toHaveLength(1);
    expect(got[0]!.body.data).toMatchObject({
      formId: w.form.id,
      siteId: w.sites.A,
      year: 2025,
      periodUnit: 6,
      status: 'COMPLETE',
    });
    expect(got[0]!.body.data.values).toEqual([expect.objectContaining({ elementKey: 'elec', value: 5 })]);
    // The same import again changes nothing complete: no second event.
    expect((await w.run({ mode: 'execute', sheets })).status).toBe(200);
    expect(await delivered('/imported')).toHaveLength(1);
  });

  it('a completion no write announced (the expected elements changed) is swept within a minute', async () => {
    const { tenant, form, submit } = await twoElementWorld();
    await submit({ a: 1 });
    await register(tenant, '/swept', ['period.completed']);
    // Making `a` the only required element completes month 1 through the form's trigger alone.
    await t.database.tenant(tenant.organizationId, (tx) =>
      sql`UPDATE form_elements SET required = (key = 'a') WHERE form_id = ${form.id}`.execute(tx),
    );
    t.advance(61_000);
    const got = await delivered('/swept');
    expect(got).toHaveLength(1);
    expect(got[0]!.body.data).toMatchObject({ formId: form.id, periodUnit: 1, status: 'COMPLETE' });
  });
});
