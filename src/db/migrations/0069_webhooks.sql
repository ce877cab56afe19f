-- Webhook endpoints and their delivery log (decision 217). The signing secret is kept sealed
-- (AES-256-GCM under a key derived from the service secret), never hashed: it has to sign.
-- `created_by` is the owner who registered the endpoint: deliveries carry only what that person
-- may read, and stop when they are no longer an owner of the organization.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  created_by uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url text NOT NULL CHECK (length(url) <= 2000),
  description text NOT NULL DEFAULT '' CHECK (length(description) <= 500),
  events text[] NOT NULL,
  secret_sealed text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id)
);
CREATE INDEX webhook_endpoints_org_idx ON webhook_endpoints (organization_id, created_at);
SELECT sdcs_tenant_table('webhook_endpoints');

-- One row per (event, endpoint): its id is the message's `webhook-id`, the same on every retry
-- and re-delivery, so receivers can drop duplicates.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  endpoint_id uuid NOT NULL,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL,
  last_attempt_at timestamptz,
  delivered_at timestamptz,
  FOREIGN KEY (organization_id, endpoint_id) REFERENCES webhook_endpoints (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id);
SELECT sdcs_tenant_table('webhook_deliveries');
