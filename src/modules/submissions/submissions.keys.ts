import type { Database, Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { idempotencyConflict } from '../../http/idempotency.ts';
import { canonicalHash } from '../../lib/canonical.ts';
import { submissionKeysRepository as keys } from './submissions.keys.repository.ts';

/** A request's Idempotency-Key with its body's canonical hash. */
export interface RequestKey {
  key: string;
  fingerprint: string;
}

export const requestKey = (key: string | undefined, body: unknown): RequestKey | undefined =>
  key === undefined ? undefined : { key, fingerprint: canonicalHash(body) };

/** An answer, and whether it is the stored answer of an earlier request with the same key. */
export interface KeyedAnswer<T> {
  status: number;
  body: T;
  replayed: boolean;
}

/**
 * Claims the key in the request's transaction (decision 194): undefined when it was free (the
 * request runs, and `keepAnswer` stores its answer before the commit), else the stored answer of
 * the request that holds it, or a 409 when that request had another body. A concurrent request
 * with the same key waits in the claim until the first one's transaction ends: committed, its
 * answer is replayed; rolled back (refused, failed), the claim is this request's.
 */
export async function claimKey<T>(
  tx: Tx,
  caller: Caller,
  request: RequestKey,
): Promise<KeyedAnswer<T> | undefined> {
  const { organizationId, userId } = caller;
  if (await keys.claim(tx, organizationId, userId, request.key, request.fingerprint)) return undefined;
  const stored = await keys.find(tx, organizationId, userId, request.key);
  // Gone between the two statements (removed as expired), or never answered: nothing to replay.
  if (!stored || stored.status === null) throw idempotencyConflict('busy');
  if (stored.fingerprint !== request.fingerprint) throw idempotencyConflict('reused');
  return { status: stored.status, body: stored.response as T, replayed: true };
}

/** Stores the answer of a claimed key, in the transaction that claimed it. */
export async function keepAnswer(
  tx: Tx,
  caller: Caller,
  request: RequestKey,
  status: number,
  body: unknown,
): Promise<void> {
  await keys.answer(tx, caller.organizationId, caller.userId, request.key, status, body);
}

/** Keys are kept at least this long; older ones are removed by `removeExpiredKeys`. */
export const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;
export const KEY_CLEANUP_INTERVAL_MS = 60 * 60 * 1000;

/** Removes the keys of every organization older than the retention; returns how many. */
export function removeExpiredKeys(database: Database, now: Date): Promise<number> {
  const before = new Date(now.getTime() - KEY_RETENTION_MS);
  return database.system((tx) => keys.removeOlderThan(tx, before));
}

/** The recurring job that removes expired keys, hourly, by one process (decision 232). */
export const KEY_CLEANUP_JOB = 'submissions.key-cleanup';
