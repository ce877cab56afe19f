import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { AppError, notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { isUuid } from '../../lib/ids.ts';
import { newApiKey, sha256Hex } from '../../lib/secrets.ts';
import { apiKeysRepository as repo } from './apikeys.repository.ts';

/** Live keys an organization may hold when the configuration does not say (SDCS_MAX_API_KEYS_PER_ORGANIZATION). */
export const DEFAULT_MAX_LIVE_KEYS = 20;

/**
 * Creates a key acting as the caller; the plain key is returned this once only. An organization
 * holds at most `maxLive` live keys (409 beyond, naming the limit): each key has its own request
 * budget, so keys are capped as well as counted against the organization's budget (decision 155).
 */
export async function createApiKey(tx: Tx, caller: Caller, name: string, maxLive = DEFAULT_MAX_LIVE_KEYS) {
  const live = await repo.lockAndCountLive(tx, caller.organizationId);
  if (live >= maxLive) {
    throw new AppError(
      'CONFLICT',
      `Your organization already has ${live} active API keys, the most it may hold (${maxLive}); revoke one you no longer use first`,
      [{ path: 'name', message: `at most ${maxLive} active API keys per organization` }],
    );
  }
  const apiKey = newApiKey();
  const row = await repo.insert(tx, caller.organizationId, {
    userId: caller.userId,
    name,
    keyHash: sha256Hex(apiKey),
  });
  return { id: row.id, name: row.name, createdAt: iso(row.created_at), apiKey };
}

export async function listApiKeys(tx: Tx, caller: Caller) {
  const rows = await repo.list(tx, caller.organizationId);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    createdAt: iso(r.created_at),
    hashedKey: r.key_hash,
    lastUsedAt: iso(r.last_used_at),
    userId: r.user_id,
    userEmail: r.owner_email,
  }));
}

export async function revokeApiKey(tx: Tx, caller: Caller, id: string): Promise<void> {
  if (!isUuid(id) || !(await repo.revoke(tx, caller.organizationId, id))) throw notFound('API key');
}
