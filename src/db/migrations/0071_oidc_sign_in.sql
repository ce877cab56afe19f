-- Sign-in through an organization's identity provider with OpenID Connect (issue 49, item 1;
-- decision 220).
--
-- One provider per organization, set by an owner. The client secret is kept sealed (AES-256-GCM
-- under a key derived from SDCS_SECRET); the API never answers it.
CREATE TABLE organization_sso (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  -- The issuer identifier; its discovery document is <issuer>/.well-known/openid-configuration.
  issuer text NOT NULL,
  client_id text NOT NULL,
  client_secret_sealed text NOT NULL,
  -- The ID token claim that carries the person's e-mail address.
  email_claim text NOT NULL DEFAULT 'email',
  -- Shown on the app's sign-in screen: "Sign in with <display_name>".
  display_name text NOT NULL,
  -- Lower-case domains an e-mail must belong to; empty: any.
  allowed_domains text[] NOT NULL DEFAULT '{}',
  -- An address that was not invited joins as a VIEWER of no site (true) or is refused (false).
  join_as_viewer boolean NOT NULL DEFAULT false,
  -- Members of the organization cannot sign in to it with a password (API keys still work).
  sso_only boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
SELECT sdcs_tenant_table('organization_sso');

-- A sign-in under way at the provider, found by the hash of its `state`: the nonce and the PKCE
-- verifier stay here, on the server. Used once: the callback marks it used in the statement that
-- reads it, so a replayed state finds nothing to use. Outside any tenant (system transactions).
CREATE TABLE oidc_logins (
  state_hash text PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  nonce text NOT NULL,
  code_verifier text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oidc_logins_expires ON oidc_logins (expires_at);

-- The one-time code the callback hands the app (in the address's fragment) for it to exchange,
-- by POST, for the service's access token: no token in any URL. Kept as its SHA-256; short-lived.
CREATE TABLE oidc_handoffs (
  code_hash text PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oidc_handoffs_expires ON oidc_handoffs (expires_at);
