import type { ColumnType, Generated } from 'kysely';

/** A timestamp the database fills in; read as a Date, written as a Date or ISO string. */
export type CreatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;
/** A jsonb column: written through the `json()` helper, read as parsed JSON. */
export type Json<T = unknown> = ColumnType<T, unknown, unknown>;

export type Role = 'OWNER' | 'MANAGER' | 'COLLECTOR' | 'VIEWER';
export type ValueStatus = 'COMPLETED' | 'APPROVED' | 'REJECTED';

export interface OrganizationsTable {
  id: Generated<string>;
  name: string;
  default_statuses: ColumnType<ValueStatus[], ValueStatus[] | undefined, ValueStatus[]>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface UsersTable {
  id: Generated<string>;
  email: string;
  name: Generated<string>;
  image: string | null;
  password_hash: string | null;
  /** The person's language (BCP 47, one of the shipped ones), or null: the browser's. */
  locale: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface MembershipsTable {
  organization_id: string;
  user_id: string;
  role: Role;
  status: Generated<'active' | 'pending'>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface AccessTokensTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  token_hash: string;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  name: string;
  key_hash: string;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  created_at: CreatedAt;
}

/** An organization's OIDC identity provider (decision 220). */
export interface OrganizationSsoTable {
  organization_id: string;
  issuer: string;
  client_id: string;
  client_secret_sealed: string;
  email_claim: Generated<string>;
  display_name: string;
  allowed_domains: ColumnType<string[], string[] | undefined, string[]>;
  join_as_viewer: Generated<boolean>;
  sso_only: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

/** An OIDC sign-in under way: state (hashed), nonce and PKCE verifier, used once. */
export interface OidcLoginsTable {
  state_hash: string;
  organization_id: string;
  nonce: string;
  code_verifier: string;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: CreatedAt;
}

/** The one-time code an OIDC callback hands the app, exchanged once for an access token. */
export interface OidcHandoffsTable {
  code_hash: string;
  organization_id: string;
  user_id: string;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: CreatedAt;
}
