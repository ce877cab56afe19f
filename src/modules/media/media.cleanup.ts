import type { Database } from '../../db/client.ts';
import { LocalStorage } from '../../storage/local.ts';
import type { Storage } from '../../storage/storage.ts';
import { mediaRepository as repo } from './media.repository.ts';

/** Pending uploads older than this are abandoned: their records and files are removed. */
export const PENDING_MAX_AGE_MS = 24 * 60 * 60 * 1000;
export const CLEANUP_INTERVAL_MS = 60 * 60 * 1000;
/** The recurring job that runs `cleanupPendingMedia` once per interval across processes (decision 216). */
export const MEDIA_CLEANUP_JOB = 'media.cleanup';
const BATCH = 500;

/** Removes abandoned pending uploads (records and any bytes) and stray temporary files. */
export async function cleanupPendingMedia(database: Database, storage: Storage, now: Date): Promise<number> {
  const before = new Date(now.getTime() - PENDING_MAX_AGE_MS);
  let removed = 0;
  for (;;) {
    const stale = await database.system((tx) => repo.stalePending(tx, before, BATCH));
    for (const row of stale) {
      const gone = await database.tenant(row.organization_id, async (tx) => {
        if (!(await repo.removeStale(tx, row.organization_id, row.id))) return false;
        await storage.remove(row.key);
        return true;
      });
      if (gone) removed++;
    }
    if (stale.length < BATCH) break;
  }
  if (storage instanceof LocalStorage) await storage.sweepIncoming(before);
  return removed;
}
