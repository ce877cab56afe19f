-- The durable job queue (decision 216): one row per piece of background work. A worker claims
-- due rows with FOR UPDATE SKIP LOCKED (so several processes never take the same row), marks them
-- running and moves run_after to the end of its lease: a row still running after its lease ran
-- out belongs to a process that died, and is claimed again. A failed attempt goes back to
-- 'queued' with run_after pushed back exponentially; the last one leaves it 'failed'.
-- Times are written from the service's clock, not now(), so tests can move time.
CREATE TABLE jobs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind text NOT NULL CHECK (kind ~ '^[a-z][a-z0-9.-]{0,60}$'),
  -- The organization the work is for (null: the service's own work, e.g. clean-ups).
  organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE,
  payload jsonb NOT NULL DEFAULT '{}',
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  max_attempts integer NOT NULL CHECK (max_attempts >= 1),
  -- Queued: not before this time. Running: the end of the worker's lease.
  run_after timestamptz NOT NULL,
  locked_by text,
  last_error text,
  created_at timestamptz NOT NULL,
  finished_at timestamptz
);
-- What workers scan: the due rows of the live states, oldest first.
CREATE INDEX jobs_due_idx ON jobs (run_after) WHERE state IN ('queued', 'running');
CREATE INDEX jobs_finished_idx ON jobs (finished_at) WHERE state IN ('done', 'failed');
SELECT sdcs_tenant_table('jobs');
