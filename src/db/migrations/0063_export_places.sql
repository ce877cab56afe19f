-- The places of running exports, shared by every service process over one database (decision 204):
-- the caps per caller and per organization count these rows, so that two processes do not admit
-- twice an organization's exports. A place is taken in one short transaction under the
-- organization's advisory lock (so parallel requests cannot both take the last place), renewed
-- while its export runs, and removed when it ends; a process that dies leaves rows whose lease
-- runs out (`expires_at`), after which nobody counts them.
CREATE TABLE export_places (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- `user:<id>` or `key:<id>`: the caller the per-caller cap counts.
  caller text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX export_places_organization_idx ON export_places (organization_id, expires_at);
SELECT sdcs_tenant_table('export_places');
