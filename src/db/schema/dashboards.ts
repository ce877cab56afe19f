import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Json } from './identity.ts';

type TextArray = ColumnType<string[], string[] | undefined, string[]>;

export interface DashboardsTable {
  id: Generated<string>;
  organization_id: string;
  name: string;
  description: string | null;
  is_public: Generated<boolean>;
  public_can_filter_sites: Generated<boolean>;
  position: Generated<number>;
  global_filter: Json<Record<string, unknown>>;
  widget_theme: Json<Record<string, unknown>>;
  tags: TextArray;
  password_hash: string | null;
  public_access_emails: TextArray;
  public_access_domains: TextArray;
  gate_version: Generated<number>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface DashboardWidgetsTable {
  id: Generated<string>;
  organization_id: string;
  dashboard_id: string;
  type: string;
  title: string;
  indicator_ids: ColumnType<string[], string[], string[]>;
  config: Json<Record<string, unknown>>;
  position: Generated<number>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface DashboardGrantsTable {
  id: Generated<string>;
  organization_id: string;
  dashboard_id: string;
  token_hash: string;
  email: string | null;
  gate_version: number;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  created_at: CreatedAt;
}

export interface DashboardAccessCodesTable {
  id: Generated<string>;
  organization_id: string;
  dashboard_id: string;
  email: string;
  code_hash: string;
  gate_version: number;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Wrong guesses of this code; at MAX_CODE_FAILURES the code is voided. */
  failures: Generated<number>;
  created_at: CreatedAt;
}

export interface DashboardAccessAttemptsTable {
  organization_id: string;
  dashboard_id: string;
  client: string;
  window_started_at: ColumnType<Date, Date | string, Date | string>;
  attempts: number;
}
