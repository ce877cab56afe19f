import { iso } from '../../domain/time.ts';
import type { MediaRow } from './media.repository.ts';
import type { Media } from './media.schemas.ts';

export function presentMedia(row: MediaRow): Omit<Media, 'downloadUrl' | 'downloadUrlExpiresAt'> {
  return {
    id: row.id,
    fileName: row.file_name,
    contentType: row.content_type,
    size: row.size === null ? null : Number(row.size),
    sha256: row.sha256,
    status: row.status,
    entityType: row.entity_type,
    entityId: row.entity_id,
    fieldName: row.field_name,
    createdAt: iso(row.created_at),
    uploadedAt: iso(row.uploaded_at),
    uploadedBy: row.uploaded_by,
  };
}
