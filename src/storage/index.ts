import { join } from 'node:path';
import type { Config } from '../config.ts';
import { LocalStorage } from './local.ts';
import { S3Storage } from './s3.ts';
import type { Storage } from './storage.ts';

export type { Storage } from './storage.ts';

/** The configured store: S3 when S3_BUCKET is set, else the data directory's `media/` folder. */
export function createStorage(config: Config, apiBase: string): Storage {
  if (config.s3) return new S3Storage(config.s3);
  return new LocalStorage(
    join(config.dataDir, 'media'),
    config.secret,
    `${config.publicUrl}${apiBase}/media/upload`,
    `${config.publicUrl}${apiBase}/media`,
  );
}
