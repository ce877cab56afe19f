import { sql } from 'kysely';
import { api, type TestContext } from '../../helpers/app.ts';
import type { Tenant } from '../../helpers/factories.ts';
import type { SecurityCase } from '../matrix.ts';

// A literal public address: registration checks it without a DNS look-up, and nothing is delivered here.
const URL = 'https://1.1.1.1/sdcs-security-matrix';

async function endpoint(t: TestContext, tenant: Tenant): Promise<string> {
  const res = await api(t, 'POST', '/webhooks', {
    token: tenant.owner.token,
    body: { url: URL, events: ['period.locked'] },
  });
  if (res.status !== 200) throw new Error(`webhook not created: ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** An endpoint with one delivery in its log (written directly: no event is needed). */
async function delivery(t: TestContext, tenant: Tenant): Promise<{ id: string; deliveryId: string }> {
  const id = await endpoint(t, tenant);
  const row = await t.database.tenant(tenant.organizationId, (tx) =>
    sql<{ id: string }>`
      INSERT INTO webhook_deliveries (organization_id, endpoint_id, event_type, payload, created_at)
      VALUES (${tenant.organizationId}, ${id}, 'period.locked', '{}', now()) RETURNING id`.execute(tx),
  );
  return { id, deliveryId: row.rows[0]!.id };
}

export const cases: SecurityCase[] = [
  {
    method: 'POST',
    route: '/webhooks',
    prepare: async () => ({ url: '/webhooks', body: { url: URL, events: ['value.submitted'] } }),
  },
  { method: 'GET', route: '/webhooks', prepare: async () => ({ url: '/webhooks' }) },
  {
    method: 'PUT',
    route: '/webhooks/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({
      url: `/webhooks/${await endpoint(t, tenant)}`,
      body: { description: 'changed' },
    }),
  },
  {
    method: 'DELETE',
    route: '/webhooks/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/webhooks/${await endpoint(t, tenant)}` }),
  },
  {
    method: 'POST',
    route: '/webhooks/:id/rotate-secret',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/webhooks/${await endpoint(t, tenant)}/rotate-secret` }),
  },
  {
    method: 'GET',
    route: '/webhooks/:id/deliveries',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/webhooks/${await endpoint(t, tenant)}/deliveries` }),
  },
  {
    method: 'POST',
    route: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    tenantRecord: true,
    successStatus: 202,
    prepare: async (t, tenant) => {
      const { id, deliveryId } = await delivery(t, tenant);
      return { url: `/webhooks/${id}/deliveries/${deliveryId}/redeliver` };
    },
  },
];
