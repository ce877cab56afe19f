-- The Idempotency-Key of POST /form-submissions (decision 194): one row per key a person used in
-- an organization, claimed in the submission's own transaction, holding the canonical hash of the
-- body and the answer given (status and body), replayed for a retry with the same key and body.
-- A request refused or failed leaves no row (its transaction is rolled back). Rows older than
-- 24 hours are removed hourly by the service.
CREATE TABLE form_submission_keys (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key text NOT NULL CHECK (key ~ '^[\x21-\x7e]{1,200}$'),
  fingerprint text NOT NULL,
  -- Null only inside the claiming transaction, until its answer is known.
  status integer,
  response jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id, key)
);
CREATE INDEX form_submission_keys_created_idx ON form_submission_keys (created_at);
SELECT sdcs_tenant_table('form_submission_keys');
