import type { Generated } from 'kysely';
import type { CreatedAt, Json, NullableTimestamp } from './identity.ts';

export interface SourceAdapterDefinitionsTable {
  id: Generated<string>;
  organization_id: string;
  name: string;
  description: string | null;
  adapter_version: string;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface SourceAdapterVersionsTable {
  organization_id: string;
  definition_id: string;
  adapter_version: string;
  mapping: Json<unknown>;
  created_at: CreatedAt;
}

export type SourceImportStatus = 'pending' | 'previewed' | 'processing' | 'completed' | 'failed';

export interface SourceImportRunsTable {
  id: Generated<string>;
  organization_id: string;
  source_adapter_definition_id: string;
  adapter_version: string;
  user_id: string;
  idempotency_key: string | null;
  fingerprint: string;
  mode: 'preview' | 'execute';
  status: SourceImportStatus;
  media_id: string | null;
  file_name: string | null;
  total_rows: Generated<number>;
  draft_count: Generated<number>;
  issue_count: Generated<number>;
  activity_write_count: Generated<number>;
  form_value_write_count: Generated<number>;
  counts: Json<Record<string, number>>;
  response: Json<unknown>;
  error: string | null;
  processed_at: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  deleted_at: NullableTimestamp;
}

export interface SourceImportIssuesTable {
  organization_id: string;
  run_id: string;
  seq: number;
  sheet: string;
  row_index: number;
  column_name: string | null;
  message: string;
  /** The documented code of the issue (decision 239), with its params; null on older rows. */
  code: string | null;
  params: Json<Record<string, string | number | boolean | null> | null>;
}

/** An accepted import's request, kept until its run finishes (migration 0073, decision 234). */
export interface SourceImportRequestsTable {
  run_id: string;
  organization_id: string;
  caller: Json<unknown>;
  idempotency_key: string;
  row_count: number;
  body: string;
  created_at: CreatedAt;
}
