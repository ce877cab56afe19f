import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.ts';
import { LocalStorage } from '../../storage/local.ts';
import type { Storage } from '../../storage/storage.ts';
import { mediaRepository as repo } from './media.repository.ts';

/** Pending uploads older than this are abandoned: their records and files are removed. */
export const PENDING_MAX_AGE_MS = 24 * 60 * 60 * 1000;
export const CLEANUP_INTERVAL_MS = 60 * 60 * 1000;
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

/** Runs the cleanup now and then hourly; returns the function that stops it. */
export function scheduleMediaCleanup(
  database: Database,
  storage: Storage,
  clock: () => Date,
  log: FastifyBaseLogger,
): () => void {
  const run = () =>
    cleanupPendingMedia(database, storage, clock()).then(
      (removed) => removed > 0 && log.info({ removed }, 'removed abandoned pending uploads'),
      (error) => log.error({ err: error }, 'media cleanup failed'),
    );
  void run();
  const timer = setInterval(run, CLEANUP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
