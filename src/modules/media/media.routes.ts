import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { errors, IdParams } from '../../http/schemas.ts';
import type { Services } from '../../http/services.ts';
import { contentDisposition } from '../../storage/disposition.ts';
import { LocalStorage } from '../../storage/local.ts';
import { mediaRepository } from './media.repository.ts';
import {
  MEDIA_DELETE_FORBIDDEN,
  MEDIA_NOT_FOUND,
  Media,
  PresignBody,
  PresignResult,
  UPLOAD_RESPONSES,
  WHO_SEES_A_FILE,
} from './media.schemas.ts';
import type { MediaDeps } from './media.service.ts';
import { createUpload, deleteMedia, getMedia } from './media.service.ts';
import { handleUpload } from './media.upload.ts';

/** GET /media/{id}/content: the bytes, or a JSON error (typed loosely: the handler streams). */
/**
 * The answers of a download: the file's bytes under the content type it was uploaded as, which is
 * one of the configured types (SDCS_MEDIA_TYPES) at the time of its upload. Each configured type is
 * declared; `*` + `/*` stands for a type that a file uploaded under an earlier configuration keeps.
 */
function downloadResponses(mediaTypes: ReadonlyMap<string, string>): Record<number, unknown> {
  const binary = { schema: Type.String({ format: 'binary' }) };
  const types = [...new Set(mediaTypes.values())].sort();
  return {
    200: {
      description: `The file’s bytes, with the content type it was uploaded as: the type configured for its extension (SDCS_MEDIA_TYPES; now ${types.join(', ')}). A file uploaded under an earlier configuration keeps its type, hence the wildcard.`,
      headers: {
        'content-disposition': Type.String({ description: 'attachment, with the file’s name' }),
        'content-length': Type.Integer({ minimum: 0, description: 'The file’s size in bytes' }),
        'cache-control': Type.String({ description: '`private, no-store`' }),
        'x-content-type-options': Type.String({ description: '`nosniff`' }),
        'content-security-policy': Type.String({ description: 'Nothing in the file runs' }),
      },
      content: { ...Object.fromEntries(types.map((type) => [type, binary])), '*/*': binary },
    },
    ...errors(403, 404),
  };
}

/** Uploads per client address and minute on the public upload endpoint (each carries a signed policy). */
const UPLOADS_PER_MINUTE = 600;

export const mediaRoutes: FastifyPluginAsyncTypebox<Services> = async (
  app,
  { database, config, storage, clock },
) => {
  const deps: MediaDeps = { config, storage, clock };
  app.post(
    '/media/presigned-url',
    {
      config: { minRole: 'COLLECTOR' },
      schema: {
        operationId: 'media.presign',
        tags: ['Media'],
        summary: 'Ask for an upload URL (S3 presigned POST)',
        description:
          'Records a pending upload and returns where to POST it: send `fields` as multipart/form-data, then the file as `file`, within 15 minutes. The file’s extension and content type must be allowed and its size at most `fileSize`. With a storage quota, `fileSize` is reserved until the URL expires: stored bytes plus the reservations of live URLs must fit (400 otherwise), and the quota is checked again when the upload completes.',
        body: PresignBody,
        response: { 200: PresignResult, ...errors(400, 401, 403) },
      },
    },
    (request) => request.tenant((tx, caller) => createUpload(tx, caller, request.body, deps)),
  );

  app.get(
    '/media/:id',
    {
      config: { minRole: 'VIEWER' },
      schema: {
        operationId: 'media.get',
        tags: ['Media'],
        summary: 'A file’s metadata and a download URL (valid 5 minutes)',
        description: WHO_SEES_A_FILE,
        params: IdParams,
        response: { 200: Media, ...errors(401, 403), 404: MEDIA_NOT_FOUND },
      },
    },
    (request) => request.tenant((tx, caller) => getMedia(tx, caller, request.params.id, deps)),
  );

  app.delete(
    '/media/:id',
    {
      config: { minRole: 'COLLECTOR' },
      schema: {
        operationId: 'media.delete',
        tags: ['Media'],
        summary: 'Delete a file (its uploader or a manager)',
        description: `Refused (400) while a form value still refers to the file. ${WHO_SEES_A_FILE} Of the files a caller sees, the uploader or a manager may delete one (else 403).`,
        params: IdParams,
        response: {
          200: Type.Object({ success: Type.Boolean() }),
          ...errors(400, 401),
          403: MEDIA_DELETE_FORBIDDEN,
          404: MEDIA_NOT_FOUND,
        },
      },
    },
    async (request) => {
      await request.tenant((tx, caller) => deleteMedia(tx, caller, request.params.id, deps));
      return { success: true };
    },
  );

  // The local store's own endpoints: the POST upload target and signed downloads. They are
  // public (the signed policy or URL is the credential) and answer 404 when S3 is configured.
  await app.register(async (upload) => {
    upload.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));
    upload.post(
      '/media/upload',
      {
        config: { public: true, rateLimit: { max: UPLOADS_PER_MINUTE, timeWindow: 60_000 } },
        schema: {
          operationId: 'media.upload',
          tags: ['Media'],
          summary: 'Upload a file with the fields of a presigned POST (local storage)',
          description:
            'multipart/form-data: the `fields` returned by POST /media/presigned-url, then `file`. Answers as S3 does: 204, or 201 with XML when `success_action_status` is 201; errors are S3 XML (403 signature, policy or expiry; 400 size or malformed).',
          response: UPLOAD_RESPONSES,
        },
      },
      async (request, reply) => {
        if (!(storage instanceof LocalStorage)) {
          return reply
            .code(404)
            .type('application/xml')
            .send(
              '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchBucket</Code><Message>Files are stored in S3: upload to the URL that POST /media/presigned-url returns</Message></Error>',
            );
        }
        return handleUpload(request, reply, {
          database,
          storage,
          now: app.clock,
          quotaBytes: deps.config.mediaQuotaBytes,
        });
      },
    );
  });

  app.get(
    '/media/:id/content',
    {
      config: { public: true },
      schema: {
        operationId: 'media.download',
        tags: ['Media'],
        summary: 'The bytes of a file, by the signed URL of GET /media/{id} (local storage)',
        params: IdParams,
        querystring: Type.Object({ expires: Type.String(), signature: Type.String() }),
        response: downloadResponses(deps.config.mediaTypes),
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const { expires, signature } = request.query;
      if (!(storage instanceof LocalStorage) || !storage.checkDownload(id, expires, signature, app.clock())) {
        return reply.code(403).send({
          code: 'FORBIDDEN',
          message: 'Insufficient access',
          issues: [{ message: 'The download URL is invalid or has expired' }],
        });
      }
      const row = await database.system((tx) => mediaRepository.uploadedById(tx, id));
      const stream = row ? await storage.open(row.key) : undefined;
      if (!row || !stream)
        return reply
          .code(404)
          .send({ code: 'NOT_FOUND', message: 'Not found', issues: [{ message: 'Media not found' }] });
      return reply
        .type(row.content_type)
        .header('content-length', String(row.size))
        .header('content-disposition', contentDisposition(row.file_name))
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .send(stream);
    },
  );
};
