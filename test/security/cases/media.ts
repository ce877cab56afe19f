import { randomUUID } from 'node:crypto';
import { createUploadedMedia } from '../../helpers/media.ts';
import type { SecurityCase } from '../matrix.ts';

export const cases: SecurityCase[] = [
  {
    method: 'POST',
    route: '/media/presigned-url',
    prepare: async () => ({
      url: '/media/presigned-url',
      body: { fileName: 'matrix.pdf', entityId: 'matrix', fieldName: 'doc', fileSize: 10 },
    }),
  },
  {
    method: 'GET',
    route: '/media/:id',
    tenantRecord: true,
    prepare: async (t, tenant) => ({ url: `/media/${await createUploadedMedia(t, tenant.organizationId)}` }),
  },
  {
    method: 'DELETE',
    route: '/media/:id',
    tenantRecord: true,
    // The lowest allowed role (COLLECTOR) may delete what it uploaded.
    prepare: async (t, tenant) => ({
      url: `/media/${await createUploadedMedia(t, tenant.organizationId, tenant.collector.userId)}`,
    }),
  },
  {
    method: 'POST',
    route: '/media/upload',
    // Public: the signed policy in the form is the credential (a missing one is an S3 400).
    prepare: async () => ({ url: '/media/upload' }),
  },
  {
    method: 'GET',
    route: '/media/:id/content',
    // Public: the signed URL is the credential (an unsigned one is a 403).
    prepare: async () => ({ url: `/media/${randomUUID()}/content?expires=1&signature=00` }),
  },
];
