-- Dashboards and their widgets, and the public access to a dashboard: grants (viewer tokens of
-- one dashboard), one-time e-mail codes, and failed attempts per (dashboard, client address).

CREATE TABLE dashboards (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) > 0),
  description text,
  is_public boolean NOT NULL DEFAULT false,
  public_can_filter_sites boolean NOT NULL DEFAULT false,
  position integer NOT NULL DEFAULT 0,
  global_filter jsonb NOT NULL DEFAULT '{}'::jsonb,
  widget_theme jsonb NOT NULL DEFAULT '{}'::jsonb,
  tags text[] NOT NULL DEFAULT '{}'::text[],
  -- argon2id; null: no password.
  password_hash text,
  -- Lower-cased; an address on the list or under a listed domain may ask for a code.
  public_access_emails text[] NOT NULL DEFAULT '{}'::text[],
  public_access_domains text[] NOT NULL DEFAULT '{}'::text[],
  -- Raised whenever the password or the lists change: grants of an older version are refused.
  gate_version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id)
);
CREATE INDEX dashboards_org_idx ON dashboards (organization_id, position, created_at);
SELECT sdcs_tenant_table('dashboards');

CREATE TABLE dashboard_widgets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  dashboard_id uuid NOT NULL,
  type text NOT NULL CHECK (type IN ('VALUE', 'LINE', 'BAR', 'TABLE')),
  title text NOT NULL,
  -- Indicator ids (text: read back as a plain array on both drivers).
  indicator_ids text[] NOT NULL,
  config jsonb NOT NULL DEFAULT '{}'::jsonb,
  position integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id),
  FOREIGN KEY (organization_id, dashboard_id) REFERENCES dashboards (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX dashboard_widgets_dashboard_idx ON dashboard_widgets (organization_id, dashboard_id, position);
-- Which widgets use an indicator (the indicators' widgetUsage).
CREATE INDEX dashboard_widgets_indicators_idx ON dashboard_widgets USING gin (indicator_ids);
SELECT sdcs_tenant_table('dashboard_widgets');

-- A viewer grant of one dashboard: only the hash of its token is kept.
CREATE TABLE dashboard_grants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  dashboard_id uuid NOT NULL,
  token_hash text NOT NULL UNIQUE,
  email text,
  gate_version integer NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (organization_id, dashboard_id) REFERENCES dashboards (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX dashboard_grants_dashboard_idx ON dashboard_grants (organization_id, dashboard_id);
SELECT sdcs_tenant_table('dashboard_grants');

-- One-time codes mailed to an allowed address: hashed, short-lived, used once.
CREATE TABLE dashboard_access_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  dashboard_id uuid NOT NULL,
  email text NOT NULL,
  code_hash text NOT NULL,
  gate_version integer NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (organization_id, dashboard_id) REFERENCES dashboards (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX dashboard_access_codes_idx ON dashboard_access_codes (organization_id, dashboard_id, email, expires_at);
SELECT sdcs_tenant_table('dashboard_access_codes');

-- Attempts on a dashboard's gate per client address within a window (the limit is per pair, so
-- one client's failures never shut out the others).
CREATE TABLE dashboard_access_attempts (
  organization_id uuid NOT NULL,
  dashboard_id uuid NOT NULL,
  client text NOT NULL,
  window_started_at timestamptz NOT NULL,
  attempts integer NOT NULL,
  PRIMARY KEY (dashboard_id, client),
  FOREIGN KEY (organization_id, dashboard_id) REFERENCES dashboards (organization_id, id) ON DELETE CASCADE
);
SELECT sdcs_tenant_table('dashboard_access_attempts');
