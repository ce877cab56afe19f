import { join } from 'node:path';
import type { Config, S3Config } from '../config.ts';
import { LocalStorage } from './local.ts';
import type { Storage } from './storage.ts';

export type { Storage } from './storage.ts';

/** The configured store: S3 when S3_BUCKET is set, else the data directory's `media/` folder. */
export function createStorage(config: Config, apiBase: string): Storage {
  if (config.s3) return lazyS3(config.s3);
  return new LocalStorage(
    join(config.dataDir, 'media'),
    config.secret,
    `${config.publicUrl}${apiBase}/media/upload`,
    `${config.publicUrl}${apiBase}/media`,
  );
}

/** The S3 driver, loading the AWS SDK on first use: a service on local disk never evaluates it. */
function lazyS3(config: S3Config): Storage {
  let loaded: Promise<Storage> | undefined;
  const driver = () => {
    loaded ??= import('./s3.ts').then(({ S3Storage }) => new S3Storage(config));
    return loaded;
  };
  return {
    kind: 's3',
    presignPost: async (request) => (await driver()).presignPost(request),
    downloadUrl: async (request) => (await driver()).downloadUrl(request),
    stat: async (key) => (await driver()).stat(key),
    remove: async (key) => (await driver()).remove(key),
  };
}
