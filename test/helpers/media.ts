import { createHash, randomUUID } from 'node:crypto';
import type { TestContext } from './app.ts';

/** An `uploaded` media record of the organization (no bytes stored): for FILE values. */
export async function createUploadedMedia(
  t: TestContext,
  organizationId: string,
  uploadedBy: string | null = null,
  status: 'uploaded' | 'pending' = 'uploaded',
): Promise<string> {
  const id = randomUUID();
  const uploaded = status === 'uploaded';
  await t.database.system((tx) =>
    tx
      .insertInto('media')
      .values({
        id,
        organization_id: organizationId,
        key: `org/${organizationId}/${id}/evidence.pdf`,
        file_name: 'evidence.pdf',
        content_type: 'application/pdf',
        declared_size: 3,
        size: uploaded ? 3 : null,
        sha256: uploaded ? createHash('sha256').update('pdf').digest('hex') : null,
        status,
        uploaded_at: uploaded ? new Date() : null,
        entity_id: 'test',
        field_name: 'doc',
        uploaded_by: uploadedBy,
      })
      .execute(),
  );
  return id;
}
