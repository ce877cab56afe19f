import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../config.ts';
import { contentDisposition } from './disposition.ts';
import { uploadConditions } from './post-policy.ts';
import type { DownloadRequest, PresignedPost, Storage, StoredObject } from './storage.ts';
import { UPLOAD_TTL_SECONDS } from './storage.ts';

/** Files in an S3 bucket (or an S3-compatible store at S3_ENDPOINT, path-style). */
export class S3Storage implements Storage {
  readonly kind = 's3';
  readonly client: S3Client;

  constructor(readonly config: S3Config) {
    this.client = new S3Client({
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      ...(config.credentials ? { credentials: config.credentials } : {}),
    });
  }

  async presignPost(request: { key: string; contentType: string; maxSize: number }): Promise<PresignedPost> {
    const { fields, conditions } = uploadConditions(request.contentType, request.maxSize);
    const post = await createPresignedPost(this.client, {
      Bucket: this.config.bucket,
      Key: request.key,
      Conditions: conditions as never,
      Fields: fields,
      Expires: UPLOAD_TTL_SECONDS,
    });
    return { url: post.url, fields: post.fields };
  }

  downloadUrl(request: DownloadRequest): Promise<string> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.config.bucket,
        Key: request.key,
        ResponseContentType: request.contentType,
        ResponseContentDisposition: contentDisposition(request.fileName),
      }),
      { expiresIn: request.expiresInSeconds },
    );
  }

  async stat(key: string): Promise<StoredObject | undefined> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: key }));
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404) return undefined;
      throw error;
    }
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: key }));
    const sha256 = createHash('sha256');
    let size = 0;
    await pipeline(object.Body as Readable, async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        size += chunk.length;
        sha256.update(chunk);
      }
      yield* [];
    });
    return { size, contentType: object.ContentType, sha256: sha256.digest('hex') };
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: key }));
  }
}
