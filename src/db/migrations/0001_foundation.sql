-- Foundation: the application role, tenant helpers, organizations, users, memberships,
-- access tokens and API keys.

-- The role every tenant transaction switches to (SET LOCAL ROLE). It owns nothing, so
-- row-level security always applies to it, also when the service connects as a superuser.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sdcs_app') THEN
    CREATE ROLE sdcs_app NOLOGIN;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL; -- created concurrently by another database of the same cluster
END $$;

DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'sdcs_app', 'MEMBER') THEN
    EXECUTE format('GRANT sdcs_app TO %I', current_user);
  END IF;
END $$;

GRANT USAGE ON SCHEMA public TO sdcs_app;

CREATE TABLE organizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  default_statuses text[] NOT NULL DEFAULT ARRAY['COMPLETED', 'APPROVED']::text[],
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE organizations ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON organizations
  USING (id = (SELECT sdcs_current_org())) WITH CHECK (id = (SELECT sdcs_current_org()));
GRANT SELECT, UPDATE ON organizations TO sdcs_app;

-- Users are people; they belong to organizations through memberships.
CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  name text NOT NULL DEFAULT '',
  image text,
  password_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
GRANT SELECT, INSERT, UPDATE ON users TO sdcs_app;

CREATE TABLE memberships (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('OWNER', 'MANAGER', 'COLLECTOR', 'VIEWER')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'pending')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);
SELECT sdcs_tenant_table('memberships');

-- Opaque bearer tokens from login, signup and invitation acceptance; only their hash is kept.
CREATE TABLE access_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX access_tokens_user_idx ON access_tokens (organization_id, user_id);
SELECT sdcs_tenant_table('access_tokens');

CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_org_idx ON api_keys (organization_id, created_at);
SELECT sdcs_tenant_table('api_keys');

-- The functions and triggers this migration defined now live, as they are today, in
-- src/db/functions/ (decision 197).
