import { sql } from 'kysely';
import type { Tx } from '../../db/client.ts';

export interface EndpointRow {
  id: string;
  organization_id: string;
  created_by: string;
  url: string;
  description: string;
  events: string[];
  secret_sealed: string;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_type: string;
  payload: unknown;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
}

/** A delivery with what sending it needs (the worker's read, outside any tenant). */
export interface DeliveryToSend extends DeliveryRow {
  organization_id: string;
  url: string;
  events: string[];
  secret_sealed: string;
  enabled: boolean;
  created_by: string;
  owner_email: string;
  owner_role: string | null;
}

const ENDPOINT = sql.raw(
  'id, organization_id, created_by, url, description, events, secret_sealed, enabled, disabled_reason, created_at, updated_at',
);
const DELIVERY = sql.raw(
  'd.id, d.endpoint_id, d.event_type, d.payload, d.status, d.attempts, d.last_status_code, d.last_error, d.created_at, d.last_attempt_at, d.delivered_at',
);

/** Webhook endpoints and deliveries of one organization; every tenant method takes its id. */
export const webhooksRepository = {
  async insert(
    tx: Tx,
    org: string,
    row: { createdBy: string; url: string; description: string; events: string[]; secretSealed: string },
  ) {
    const result = await sql<EndpointRow>`
      INSERT INTO webhook_endpoints (organization_id, created_by, url, description, events, secret_sealed)
      VALUES (${org}, ${row.createdBy}, ${row.url}, ${row.description}, ${row.events}::text[], ${row.secretSealed})
      RETURNING ${ENDPOINT}`.execute(tx);
    return result.rows[0]!;
  },

  async list(tx: Tx, org: string) {
    const result = await sql<EndpointRow>`
      SELECT ${ENDPOINT} FROM webhook_endpoints WHERE organization_id = ${org} ORDER BY created_at, id`.execute(
      tx,
    );
    return result.rows;
  },

  async get(tx: Tx, org: string, id: string) {
    const result = await sql<EndpointRow>`
      SELECT ${ENDPOINT} FROM webhook_endpoints WHERE organization_id = ${org} AND id = ${id}`.execute(tx);
    return result.rows[0];
  },

  async update(
    tx: Tx,
    org: string,
    id: string,
    patch: { url: string; description: string; events: string[]; enabled: boolean; secretSealed?: string },
  ) {
    const result = await sql<EndpointRow>`
      UPDATE webhook_endpoints SET url = ${patch.url}, description = ${patch.description},
             events = ${patch.events}::text[], enabled = ${patch.enabled},
             disabled_reason = CASE WHEN ${patch.enabled} THEN NULL ELSE coalesce(disabled_reason, 'Disabled by an owner') END,
             secret_sealed = coalesce(${patch.secretSealed ?? null}, secret_sealed), updated_at = now()
       WHERE organization_id = ${org} AND id = ${id}
      RETURNING ${ENDPOINT}`.execute(tx);
    return result.rows[0];
  },

  async remove(tx: Tx, org: string, id: string): Promise<boolean> {
    const result =
      await sql`DELETE FROM webhook_endpoints WHERE organization_id = ${org} AND id = ${id}`.execute(tx);
    return Number(result.numAffectedRows ?? 0) > 0;
  },

  /** The enabled endpoints of the organization that asked for `type`. */
  async subscribed(tx: Tx, org: string, type: string): Promise<string[]> {
    const result = await sql<{ id: string }>`
      SELECT id FROM webhook_endpoints
       WHERE organization_id = ${org} AND enabled AND ${type} = ANY(events) ORDER BY id`.execute(tx);
    return result.rows.map((r) => r.id);
  },

  async insertDeliveries(tx: Tx, org: string, endpointIds: string[], type: string, payload: unknown) {
    const result = await sql<{ id: string }>`
      INSERT INTO webhook_deliveries (organization_id, endpoint_id, event_type, payload, created_at)
      SELECT ${org}, e, ${type}, ${JSON.stringify(payload)}::jsonb, now() FROM unnest(${endpointIds}::uuid[]) e
      RETURNING id`.execute(tx);
    return result.rows.map((r) => r.id);
  },

  async deliveries(tx: Tx, org: string, endpointId: string, page: { limit: number; offset: number }) {
    const result = await sql<DeliveryRow & { total: string }>`
      SELECT ${DELIVERY}, count(*) OVER () AS total FROM webhook_deliveries d
       WHERE d.organization_id = ${org} AND d.endpoint_id = ${endpointId}
       ORDER BY d.created_at DESC, d.id LIMIT ${page.limit} OFFSET ${page.offset}`.execute(tx);
    return result.rows;
  },

  async delivery(tx: Tx, org: string, endpointId: string, id: string) {
    const result = await sql<DeliveryRow>`
      SELECT ${DELIVERY} FROM webhook_deliveries d
       WHERE d.organization_id = ${org} AND d.endpoint_id = ${endpointId} AND d.id = ${id}`.execute(tx);
    return result.rows[0];
  },

  async markPending(tx: Tx, org: string, id: string) {
    await sql`UPDATE webhook_deliveries SET status = 'pending' WHERE organization_id = ${org} AND id = ${id}`.execute(
      tx,
    );
  },

  /** The worker's read of a delivery, its endpoint and the endpoint's owner (outside any tenant). */
  async toSend(tx: Tx, id: string) {
    const result = await sql<DeliveryToSend>`
      SELECT ${DELIVERY}, d.organization_id, e.url, e.events, e.secret_sealed, e.enabled, e.created_by,
             u.email AS owner_email,
             (SELECT m.role FROM memberships m WHERE m.organization_id = e.organization_id
                 AND m.user_id = e.created_by AND m.status = 'active') AS owner_role
        FROM webhook_deliveries d
        JOIN webhook_endpoints e ON e.id = d.endpoint_id
        JOIN users u ON u.id = e.created_by
       WHERE d.id = ${id}`.execute(tx);
    return result.rows[0];
  },

  async recordAttempt(
    tx: Tx,
    id: string,
    attempt: {
      status: 'pending' | 'delivered' | 'failed';
      code: number | null;
      error: string | null;
      at: Date;
    },
  ) {
    await sql`
      UPDATE webhook_deliveries SET status = ${attempt.status}, attempts = attempts + 1,
             last_status_code = ${attempt.code}, last_error = ${attempt.error}, last_attempt_at = ${attempt.at},
             delivered_at = CASE WHEN ${attempt.status} = 'delivered' THEN ${attempt.at}::timestamptz END
       WHERE id = ${id}`.execute(tx);
  },

  /** Marks a delivery failed without an attempt (its endpoint is off or its owner gone). */
  async fail(tx: Tx, id: string, error: string) {
    await sql`UPDATE webhook_deliveries SET status = 'failed', last_error = ${error} WHERE id = ${id}`.execute(
      tx,
    );
  },

  /** Disables an endpoint; answers true when it was enabled (so the owner is told once). */
  async disable(tx: Tx, endpointId: string, reason: string): Promise<boolean> {
    const result = await sql`
      UPDATE webhook_endpoints SET enabled = false, disabled_reason = ${reason}, updated_at = now()
       WHERE id = ${endpointId} AND enabled`.execute(tx);
    return Number(result.numAffectedRows ?? 0) > 0;
  },
};
