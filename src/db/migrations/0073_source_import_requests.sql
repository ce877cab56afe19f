-- Imports answered at once (202) are jobs of the durable queue (issue 50, item 2; decision 234):
-- what the job needs to run the import in any process is kept beside its run until the run
-- finishes (the row goes in the transaction that finishes the run).
CREATE TABLE source_import_requests (
  run_id uuid PRIMARY KEY REFERENCES source_import_runs (id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- Who asked (the caller as resolved when the import was accepted) and the key it claimed.
  caller jsonb NOT NULL,
  idempotency_key text NOT NULL,
  -- The body's rows in all (where the import runs depends on it, before the body is read).
  row_count integer NOT NULL,
  -- The request body as JSON text (parsed by whoever runs the import: a heavy worker on PostgreSQL).
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
SELECT sdcs_tenant_table('source_import_requests');
