import type { Readable } from 'node:stream';

/** What an upload URL carries: where to POST and the form fields to send before `file`. */
export interface PresignedPost {
  url: string;
  fields: Record<string, string>;
}

/** A stored object as the driver sees it (size, type, checksum). */
export interface StoredObject {
  size: number;
  contentType: string | undefined;
  sha256: string;
}

export interface DownloadRequest {
  mediaId: string;
  key: string;
  fileName: string;
  contentType: string;
  now: Date;
  expiresInSeconds: number;
}

/** Where media bytes live: local disk (default) or S3. Keys are `org/<org>/<media>/<name>`. */
export interface Storage {
  readonly kind: 'local' | 's3';
  presignPost(request: {
    key: string;
    contentType: string;
    maxSize: number;
    now: Date;
  }): Promise<PresignedPost>;
  downloadUrl(request: DownloadRequest): Promise<string>;
  /** The object at `key` when it exists (S3: read once to compute its SHA-256). */
  stat(key: string): Promise<StoredObject | undefined>;
  /** Removes the object; a missing object is not an error. */
  remove(key: string): Promise<void>;
  /** Opens the object's bytes (local downloads). */
  open?(key: string): Promise<Readable | undefined>;
}

/** The lifetime of an upload policy (spec §8: 15 minutes) and of a download URL. */
export const UPLOAD_TTL_SECONDS = 15 * 60;
export const DOWNLOAD_TTL_SECONDS = 5 * 60;
