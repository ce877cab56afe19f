import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Database } from './client.ts';

const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * Writes a consistent copy of the embedded database in `dataDir` to `file` (a gzip'd tar of
 * the PGlite directory). The caller holds the data directory's lock: no server is running.
 */
export async function backupEmbedded(dataDir: string, file: string): Promise<number> {
  const database = await Database.open({ dataDir });
  try {
    const dump = Buffer.from(await (await database.dumpDataDir('gzip')).arrayBuffer());
    // Written beside the target and renamed: a failed backup never leaves half a file.
    const partial = join(dirname(file), `.${randomBytes(4).toString('hex')}.partial`);
    writeFileSync(partial, dump, { mode: 0o600 });
    renameSync(partial, file);
    return dump.length;
  } finally {
    await database.close();
  }
}

/**
 * Replaces the embedded database in `dataDir` with the backup in `file`. The backup is loaded
 * and checked in a new directory first; only then is the current one moved aside (kept as
 * `<dataDir>.replaced-<time>`, never deleted) and the new one put in its place.
 * Returns where the previous database was kept, if there was one.
 */
export async function restoreEmbedded(dataDir: string, file: string): Promise<string | undefined> {
  const bytes = readFileSync(file);
  const gzip = bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
  const staging = `${dataDir}.restoring-${randomBytes(4).toString('hex')}`;
  try {
    const database = await Database.open({
      dataDir: staging,
      loadDataDir: new Blob([bytes], { type: gzip ? 'application/gzip' : 'application/x-tar' }),
    });
    try {
      await database.ping();
    } finally {
      await database.close();
    }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`${file} is not a backup of the embedded database (${(error as Error).message})`);
  }
  let kept: string | undefined;
  if (existsSync(dataDir)) {
    kept = `${dataDir}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(dataDir, kept);
  }
  renameSync(staging, dataDir);
  return kept;
}
