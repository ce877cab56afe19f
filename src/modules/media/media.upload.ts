import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline, Transform } from 'node:stream';
import busboy from 'busboy';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/client.ts';
import { alreadyUploaded, LOCAL_BUCKET, type LocalStorage } from '../../storage/local.ts';
import { S3Error, s3ErrorXml, verifyPost, xml } from '../../storage/post-policy.ts';
import type { StoredObject } from '../../storage/storage.ts';
import { mediaRepository as repo } from './media.repository.ts';
import { completeUpload, OverQuota, parseMediaKey } from './media.service.ts';

const malformed = (message: string) => new S3Error(400, 'MalformedPOSTRequest', message);

/**
 * Bytes a POST may send before its file part starts (preamble, policy, signature and the other
 * fields): a few KiB in practice. Past it the request is refused at once rather than read on,
 * since busboy's own limits only cut a field short and keep reading it.
 */
export const MAX_BYTES_BEFORE_FILE = 256 * 1024;

/**
 * Reads a multipart POST: the form fields (names lowercased; a field sent twice is refused),
 * then hands the `file` part to `onFile` while it streams. Fields after the file are ignored,
 * as S3 does. Rejects with S3Error; a client that goes away destroys the file stream.
 */
function readPost<T>(
  raw: IncomingMessage,
  onFile: (fields: Map<string, string>, file: Readable) => Promise<T>,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: raw.headers,
        limits: { fields: 50, fieldSize: 64 * 1024, fieldNameSize: 200, files: 1, parts: 51 },
      });
    } catch (error) {
      reject(malformed(`The body of a POST upload must be multipart/form-data: ${(error as Error).message}`));
      return;
    }
    const fields = new Map<string, string>();
    let failure: S3Error | undefined;
    let handled: Promise<T> | undefined;
    const fail = (error: S3Error) => {
      failure ??= error;
    };
    parser.on('field', (name, value, info) => {
      if (handled) return;
      const lower = name.toLowerCase();
      if (info.valueTruncated || info.nameTruncated) fail(malformed(`The field ${name} is too long`));
      else if (fields.has(lower))
        fail(new S3Error(400, 'InvalidArgument', `The field ${name} was sent more than once`));
      else fields.set(lower, value);
    });
    parser.on('file', (name, stream) => {
      if (handled || failure || name.toLowerCase() !== 'file') {
        if (!failure && !handled)
          fail(malformed(`Only one file, in the field named "file" and sent last, is accepted`));
        stream.resume();
        return;
      }
      handled = onFile(fields, stream);
      // A refusal (policy, size) is answered at once, as S3 does, without reading the rest.
      handled.catch((error) => {
        stream.resume();
        reject(error);
      });
    });
    parser.on('filesLimit', () => fail(malformed('Only one file per request is accepted')));
    parser.on('fieldsLimit', () => fail(malformed('Too many form fields')));
    parser.on('partsLimit', () => fail(malformed('Too many form parts')));
    // Counts what was parsed without reaching the file part (busboy parses each chunk as it is
    // written, so `handled` is set by the time the next one comes); past the cap, stops reading.
    let before = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (handled) return done(null, chunk);
        if (before <= MAX_BYTES_BEFORE_FILE) {
          before += chunk.length;
          return done(null, chunk);
        }
        raw.unpipe(meter);
        raw.pause();
        reject(
          malformed(
            `The multipart preamble and fields before the file are too long (over ${MAX_BYTES_BEFORE_FILE} bytes)`,
          ),
        );
        done();
      },
    });
    pipeline(raw, meter, parser, (error) => {
      if (error && !handled) {
        reject(malformed(`The multipart body is incomplete or malformed: ${error.message}`));
        return;
      }
      if (failure && !handled) return reject(failure);
      if (!handled)
        return reject(
          new S3Error(400, 'InvalidArgument', 'POST requires exactly one file upload per request.'),
        );
      handled.then(resolve, reject);
    });
  });
}

export interface UploadDeps {
  database: Database;
  storage: LocalStorage;
  now: () => Date;
  /** The organization's storage quota (null: none), checked again as an upload completes. */
  quotaBytes: number | null;
}

/** The local store's POST endpoint: verifies the policy, stores the file, marks the record uploaded. */
export async function handleUpload(request: FastifyRequest, reply: FastifyReply, deps: UploadDeps) {
  try {
    const result = await readPost(request.raw, (fields, file) => receive(fields, file, deps));
    const { key, status, stored } = result;
    if (status === 204 || status === 200) return reply.code(status).send();
    return reply
      .code(201)
      .type('application/xml')
      .header('etag', `"${stored.sha256}"`)
      .send(
        '<?xml version="1.0" encoding="UTF-8"?>\n<PostResponse>' +
          `<Location>${xml(key)}</Location><Bucket>${LOCAL_BUCKET}</Bucket>` +
          `<Key>${xml(key)}</Key><ETag>"${stored.sha256}"</ETag></PostResponse>`,
      );
  } catch (error) {
    if (!(error instanceof S3Error)) throw error;
    // The rest of the body is not read: ask the client to close rather than keep sending.
    if (!request.raw.complete) reply.header('connection', 'close');
    return reply.code(error.status).type('application/xml').send(s3ErrorXml(error, request.id));
  }
}

async function receive(
  fields: Map<string, string>,
  file: Readable,
  deps: UploadDeps,
): Promise<{ key: string; status: 200 | 201 | 204; stored: StoredObject }> {
  const verified = verifyPost(fields, deps.storage.identity, LOCAL_BUCKET, deps.now());
  const named = parseMediaKey(verified.key);
  if (!named) throw new S3Error(403, 'AccessDenied', 'The key is not one this service hands out');
  const { organizationId, mediaId } = named;
  // The record must still be waiting for exactly this upload.
  const record = await deps.database.tenant(organizationId, (tx) =>
    repo.byKey(tx, organizationId, verified.key),
  );
  if (!record || record.id !== mediaId) {
    throw new S3Error(403, 'AccessDenied', 'This upload was withdrawn; ask for a new upload URL');
  }
  if (record.status !== 'pending') throw alreadyUploaded();
  if (verified.contentType !== record.content_type) {
    throw new S3Error(
      403,
      'AccessDenied',
      'Invalid according to Policy: the Content-Type must be the requested one',
    );
  }
  const maxSize = Math.min(verified.maxSize, Number(record.declared_size));
  const stored = await deps.storage.receive(verified.key, file, {
    minSize: Math.max(1, verified.minSize),
    maxSize,
  });
  const marked = await deps.database
    .tenant(organizationId, (tx) =>
      completeUpload(tx, organizationId, mediaId, stored, deps.quotaBytes, deps.now()),
    )
    .catch(async (error) => {
      await deps.storage.remove(verified.key);
      if (error instanceof OverQuota) throw new S3Error(400, 'EntityTooLarge', error.message);
      throw error;
    });
  if (!marked) {
    await deps.storage.remove(verified.key);
    throw alreadyUploaded();
  }
  return { key: verified.key, status: verified.successStatus, stored };
}
