import type { SourceImportRunsTable, SourceImportStatus } from '../../db/schema/index.ts';
import { iso } from '../../domain/time.ts';
import type { adaptersRepository } from './adapters.repository.ts';
import type { AdapterDefinition, Mapping } from './adapters.schemas.ts';
import type { Run } from './imports.schemas.ts';

/** A source adapter definition row. */
export type AdapterRow = NonNullable<Awaited<ReturnType<typeof adaptersRepository.find>>>;
/** A saved version of a definition. */
export type AdapterVersionRow = Awaited<ReturnType<typeof adaptersRepository.versions>>[number];

/** A definition and its versions (`own`) as the API shows them. */
export function presentAdapter(row: AdapterRow, own: AdapterVersionRow[]): AdapterDefinition {
  // Saved with its definition, checked against the Mapping schema then: always there.
  const current = own.find((v) => v.adapter_version === row.adapter_version);
  if (!current) throw new Error(`source adapter ${row.id} has no version ${row.adapter_version}`);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    mapping: current.mapping as Mapping,
    adapterVersion: row.adapter_version,
    versions: own.map((v) => ({ adapterVersion: v.adapter_version, createdAt: iso(v.created_at) })),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** A run row (the repository returns rows of this shape). */
export type RunRow = { [K in keyof SourceImportRunsTable]: unknown } & {
  id: string;
  organization_id: string;
  source_adapter_definition_id: string;
  user_id: string;
  status: SourceImportStatus;
  media_id: string | null;
  file_name: string | null;
  total_rows: number;
  draft_count: number;
  issue_count: number;
  activity_write_count: number;
  form_value_write_count: number;
  error: string | null;
  processed_at: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
};

/** An import run as the API shows it. */
export function presentRun(r: RunRow): Run {
  return {
    id: r.id,
    sourceAdapterDefinitionId: r.source_adapter_definition_id,
    organizationId: r.organization_id,
    userId: r.user_id,
    mediaId: r.media_id,
    fileName: r.file_name,
    status: r.status,
    totalRows: r.total_rows,
    draftCount: r.draft_count,
    issueCount: r.issue_count,
    activityWriteCount: r.activity_write_count,
    formValueWriteCount: r.form_value_write_count,
    error: r.error,
    processedAt: iso(r.processed_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    deletedAt: iso(r.deleted_at),
  };
}
