import Type from 'typebox';
import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { notFound } from '../../domain/errors.ts';
import { iso } from '../../domain/time.ts';
import { DateTime, Nullable, Uuid } from '../../http/schemas.ts';
import { isUuid } from '../../lib/ids.ts';
import { policy, siteScope } from '../access/index.ts';
import { historyRepository } from './history.repository.ts';

export const ActivityHistoryEntry = Type.Object({
  id: Uuid,
  activityId: Uuid,
  action: Type.String({ description: 'CREATE, UPDATE, RECALCULATE or DELETE' }),
  userId: Uuid,
  userName: Type.String(),
  userEmail: Type.String(),
  at: DateTime,
  before: Nullable(Type.Unknown({ description: '`{input, value, metadata}` before the change' })),
  after: Nullable(Type.Unknown({ description: '`{input, value, metadata}` after the change' })),
});

/**
 * Every change of one activity, oldest first (VIEWER+ on its site). An activity that is no
 * longer stored, or on a site the caller cannot read, is a 404.
 */
export async function activityHistory(tx: Tx, caller: Caller, id: string) {
  const org = caller.organizationId;
  const activity = isUuid(id) ? await historyRepository.activity(tx, org, id) : undefined;
  if (!activity || !policy.canReadSite(await siteScope(tx, caller), activity.site_id))
    throw notFound('Activity');
  const rows = await historyRepository.entries(tx, org, id);
  return rows.map((r) => ({
    id: r.id,
    activityId: r.activity_id,
    action: r.action,
    userId: r.user_id,
    userName: r.name,
    userEmail: r.email,
    at: iso(r.at),
    before: r.before ?? null,
    after: r.after ?? null,
  }));
}
