-- Media: files uploaded through a presigned POST (local disk or S3). A record starts `pending`
-- when an upload URL is handed out and becomes `uploaded` once the bytes are stored and checked.
-- Only `uploaded` media count towards the organization's storage quota and may be referenced
-- from a FILE value.

CREATE TABLE media (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- The storage key: org/<organization_id>/<id>/<file name>.
  key text NOT NULL UNIQUE,
  file_name text NOT NULL,
  content_type text NOT NULL,
  -- The size announced when asking for the URL (the upper bound of the policy).
  declared_size bigint NOT NULL CHECK (declared_size > 0),
  -- The stored size and checksum, once uploaded.
  size bigint CHECK (size > 0),
  sha256 text CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'uploaded')),
  entity_type text,
  entity_id text NOT NULL,
  field_name text NOT NULL,
  uploaded_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  uploaded_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  CHECK (status = 'pending' OR (size IS NOT NULL AND sha256 IS NOT NULL AND uploaded_at IS NOT NULL))
);
-- The quota sums an organization's uploaded bytes; the cleanup finds old pending records.
CREATE INDEX media_org_status_idx ON media (organization_id, status);
CREATE INDEX media_pending_idx ON media (created_at) WHERE status = 'pending';
SELECT sdcs_tenant_table('media');
