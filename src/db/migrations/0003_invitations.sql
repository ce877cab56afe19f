-- Invitations: a pending membership waits for its invitee to accept a mailed token.
-- Only the SHA-256 of the token is kept. An invitation belongs to its membership, so
-- removing the (pending) member cancels the invitation with it.

CREATE TABLE invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  email text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
);
-- At most one open invitation per e-mail and organization (also under concurrent requests).
CREATE UNIQUE INDEX invitations_open_key ON invitations (organization_id, lower(email)) WHERE accepted_at IS NULL;
CREATE INDEX invitations_member_idx ON invitations (organization_id, user_id);
SELECT sdcs_tenant_table('invitations');
