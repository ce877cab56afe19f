import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, readdir, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { presignPostPolicy, S3Error, type SigningIdentity } from './post-policy.ts';
import type { DownloadRequest, PresignedPost, Storage, StoredObject } from './storage.ts';
import { UPLOAD_TTL_SECONDS } from './storage.ts';

/** The bucket name local policies carry (the local store has one). */
export const LOCAL_BUCKET = 'sdcs-local';

/**
 * Files on local disk under `<data dir>/media/<key>`. Uploads come to this service's own
 * endpoint with a POST policy signed like S3's (SigV4, with a key derived from SDCS_SECRET),
 * and downloads are URLs of this service signed with another derived key.
 */
export class LocalStorage implements Storage {
  readonly kind = 'local';
  readonly identity: SigningIdentity;
  private readonly downloadKey: Buffer;
  private readonly incoming: string;

  constructor(
    readonly root: string,
    secret: string,
    private readonly uploadUrl: string,
    private readonly downloadBase: string,
  ) {
    const derive = (purpose: string) => createHmac('sha256', secret).update(purpose).digest();
    this.identity = {
      accessKeyId: 'SDCSLOCAL',
      secretKey: derive('sdcs media upload policy v1').toString('hex'),
      region: 'local',
    };
    this.downloadKey = derive('sdcs media download v1');
    this.incoming = join(root, '.incoming');
  }

  async presignPost(request: {
    key: string;
    contentType: string;
    maxSize: number;
    now: Date;
  }): Promise<PresignedPost> {
    const fields = presignPostPolicy(this.identity, {
      ...request,
      bucket: LOCAL_BUCKET,
      expiresInSeconds: UPLOAD_TTL_SECONDS,
    });
    return { url: this.uploadUrl, fields };
  }

  private pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep) || path.startsWith(this.incoming + sep)) {
      throw new Error(`storage key outside the media directory: ${key}`);
    }
    return path;
  }

  /**
   * Streams `file` into a temporary file, counting and hashing, then links it at `key`
   * (refused when something is there already). Nothing stays behind on failure.
   */
  async receive(
    key: string,
    file: Readable,
    limits: { minSize: number; maxSize: number },
  ): Promise<StoredObject> {
    const target = this.pathOf(key);
    await mkdir(this.incoming, { recursive: true });
    const temp = join(this.incoming, `${randomBytes(12).toString('hex')}.part`);
    const sha256 = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > limits.maxSize) {
          done(new S3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size'));
          return;
        }
        sha256.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(file, meter, createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
      if (size < limits.minSize || size === 0) {
        throw new S3Error(
          400,
          'EntityTooSmall',
          'Your proposed upload is smaller than the minimum allowed size',
        );
      }
      await mkdir(dirname(target), { recursive: true });
      try {
        await link(temp, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw alreadyUploaded();
        throw error;
      }
      return { size, contentType: undefined, sha256: sha256.digest('hex') };
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }

  async stat(key: string): Promise<StoredObject | undefined> {
    const path = this.pathOf(key);
    try {
      const info = await stat(path);
      const sha256 = createHash('sha256');
      await pipeline(createReadStream(path), sha256);
      return { size: info.size, contentType: undefined, sha256: sha256.digest('hex') };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async open(key: string): Promise<Readable | undefined> {
    const path = this.pathOf(key);
    try {
      await stat(path);
    } catch {
      return undefined;
    }
    return createReadStream(path);
  }

  async remove(key: string): Promise<void> {
    const path = this.pathOf(key);
    await unlink(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    // Removes the now empty <media id> folder (keys hold one file each).
    await rmdir(dirname(path)).catch(() => undefined);
  }

  /** Removes temporary files older than `before` (left by a crash mid-upload). */
  async sweepIncoming(before: Date): Promise<number> {
    let removed = 0;
    const names = await readdir(this.incoming).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(this.incoming, name);
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtime < before) {
        await unlink(path).catch(() => undefined);
        removed++;
      }
    }
    return removed;
  }

  private downloadSignature(mediaId: string, expires: number): Buffer {
    return createHmac('sha256', this.downloadKey).update(`${mediaId}\n${expires}`).digest();
  }

  async downloadUrl(request: DownloadRequest): Promise<string> {
    const expires = Math.floor(request.now.getTime() / 1000) + request.expiresInSeconds;
    const signature = this.downloadSignature(request.mediaId, expires).toString('hex');
    return `${this.downloadBase}/${request.mediaId}/content?expires=${expires}&signature=${signature}`;
  }

  /** True when a download URL's signature is ours and it has not expired at `now`. */
  checkDownload(mediaId: string, expires: string, signature: string, now: Date): boolean {
    const at = Number(expires);
    if (!Number.isSafeInteger(at) || !/^[0-9a-f]{64}$/.test(signature)) return false;
    const valid = timingSafeEqual(this.downloadSignature(mediaId, at), Buffer.from(signature, 'hex'));
    return valid && now.getTime() < at * 1000;
  }
}

export const alreadyUploaded = () =>
  new S3Error(
    412,
    'PreconditionFailed',
    'An object was already uploaded under this key; ask for a new upload URL',
  );
