import type { Tx } from '../../db/client.ts';

/** Reads of activities' change history. */
export const historyRepository = {
  /** The activity, if it is still stored (its site decides who may read its history). */
  activity(tx: Tx, organizationId: string, id: string) {
    return tx
      .selectFrom('activities')
      .select(['id', 'site_id'])
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  /** Every change of one activity with its author, oldest first. */
  entries(tx: Tx, organizationId: string, activityId: string) {
    return tx
      .selectFrom('activity_history as h')
      .innerJoin('users as u', 'u.id', 'h.user_id')
      .select([
        'h.id',
        'h.activity_id',
        'h.action',
        'h.user_id',
        'h.at',
        'h.before',
        'h.after',
        'u.name',
        'u.email',
      ])
      .where('h.organization_id', '=', organizationId)
      .where('h.activity_id', '=', activityId)
      .orderBy('h.seq')
      .execute();
  },
};
