-- The review queue (GET /form-submissions/values): live values by status, oldest first, read
-- by keyset (recorded_at, id).
CREATE INDEX form_element_submissions_queue_idx
  ON form_element_submissions (organization_id, status, recorded_at, id) WHERE deleted_at IS NULL;

-- One row per rejection e-mail sent to the person who recorded the rejected values: the
-- per-recipient daily cap counts these rows.
CREATE TABLE review_mails (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id),
  sent_by uuid NOT NULL REFERENCES users (id),
  value_count integer NOT NULL CHECK (value_count > 0),
  sent_at timestamptz NOT NULL
);
CREATE INDEX review_mails_recipient_idx ON review_mails (organization_id, user_id, sent_at);
SELECT sdcs_tenant_table('review_mails');
REVOKE UPDATE, DELETE ON review_mails FROM sdcs_app;
