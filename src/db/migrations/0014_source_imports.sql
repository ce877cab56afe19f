-- Source adapters and imports. A definition holds a declarative mapping from sheets and columns
-- to drafts; every saved mapping is an immutable version keyed by the SHA-256 of its canonical
-- JSON (sorted keys), so an import pinned to an earlier version keeps working.

CREATE TABLE source_adapter_definitions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  -- The current version (the last one saved).
  adapter_version text NOT NULL CHECK (adapter_version ~ '^[a-f0-9]{64}$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id)
);
SELECT sdcs_tenant_table('source_adapter_definitions');

CREATE TABLE source_adapter_versions (
  organization_id uuid NOT NULL,
  definition_id uuid NOT NULL,
  adapter_version text NOT NULL CHECK (adapter_version ~ '^[a-f0-9]{64}$'),
  mapping jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, definition_id, adapter_version),
  FOREIGN KEY (organization_id, definition_id)
    REFERENCES source_adapter_definitions (organization_id, id) ON DELETE CASCADE
);
SELECT sdcs_tenant_table('source_adapter_versions');
-- Versions are immutable.
REVOKE UPDATE ON source_adapter_versions FROM sdcs_app;

-- One run per accepted POST /source-imports. The idempotency key is scoped to the calling user;
-- the unique constraint makes a concurrent duplicate wait for the first transaction and then
-- see its stored response (never a second run). A run that raised gives its key up (null), so a
-- retry can claim it; a crash rolls the whole run back, which frees the key as well.
CREATE TABLE source_import_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  source_adapter_definition_id uuid NOT NULL,
  adapter_version text NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id),
  idempotency_key text,
  fingerprint text NOT NULL CHECK (fingerprint ~ '^[a-f0-9]{64}$'),
  mode text NOT NULL CHECK (mode IN ('preview', 'execute')),
  status text NOT NULL CHECK (status IN ('pending', 'previewed', 'processing', 'completed', 'failed')),
  media_id uuid,
  file_name text,
  total_rows integer NOT NULL DEFAULT 0,
  draft_count integer NOT NULL DEFAULT 0,
  issue_count integer NOT NULL DEFAULT 0,
  activity_write_count integer NOT NULL DEFAULT 0,
  form_value_write_count integer NOT NULL DEFAULT 0,
  counts jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- The whole 200 answer, replayed for a repeated key.
  response jsonb,
  error text,
  processed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (organization_id, id),
  UNIQUE (organization_id, user_id, idempotency_key),
  FOREIGN KEY (organization_id, source_adapter_definition_id, adapter_version)
    REFERENCES source_adapter_versions (organization_id, definition_id, adapter_version)
);
CREATE INDEX source_import_runs_list_idx ON source_import_runs (organization_id, created_at DESC, id);
SELECT sdcs_tenant_table('source_import_runs');

-- Row issues of a run, in the order they were found.
CREATE TABLE source_import_issues (
  organization_id uuid NOT NULL,
  run_id uuid NOT NULL,
  seq integer NOT NULL,
  sheet text NOT NULL,
  row_index integer NOT NULL,
  column_name text,
  message text NOT NULL,
  PRIMARY KEY (organization_id, run_id, seq),
  FOREIGN KEY (organization_id, run_id) REFERENCES source_import_runs (organization_id, id) ON DELETE CASCADE
);
SELECT sdcs_tenant_table('source_import_issues');
