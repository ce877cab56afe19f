import type { ValueStatus } from '../../db/schema/index.ts';
import type { Caller } from '../../domain/caller.ts';
import { iso } from '../../domain/time.ts';
import type { ValueChange } from './changes.repository.ts';
import type { PlannedValue } from './element-types.ts';
import type { submissionValuesRepository } from './values.repository.ts';
import type { ValueItem } from './values.schemas.ts';

/** A stored value row as the pipeline locks it. */
export type StoredValue = Awaited<ReturnType<typeof submissionValuesRepository.lockValuesOf>>[number];
/** Authors by user id. */
export type Users = Map<string, { name: string; email: string; image: string | null }>;

/** Per planned value: the stored row it ends as, the change written, or nothing live to show. */
export type ValueOutcome =
  | { stored: StoredValue; change?: ValueChange }
  | { change: ValueChange }
  | undefined;

/** A value as the API shows it; the author is given separately (one users query per request). */
export function presentValue(
  row: {
    id: string;
    element_id: string;
    period_unit: number;
    timestamp: Date | null;
    value: unknown;
    original_value: unknown;
    selected_unit_id: string | null;
    status: ValueStatus;
    user_id: string;
    recorded_at: Date;
    deleted_at: Date | null;
  },
  elementKey: string,
  user: { name: string; email: string; image: string | null },
): ValueItem {
  return {
    formElementSubmissionId: row.id,
    elementId: row.element_id,
    elementKey,
    periodUnit: row.period_unit,
    timestamp: iso(row.timestamp),
    status: row.status,
    value: row.deleted_at ? null : row.value,
    originalValue: row.deleted_at ? null : (row.original_value ?? null),
    selectedUnitId: row.deleted_at ? null : row.selected_unit_id,
    userId: row.user_id,
    userName: user.name,
    userEmail: user.email,
    userImage: user.image,
    recordedAt: iso(row.recorded_at),
    deletedAt: iso(row.deleted_at),
  };
}

/** The answer's item of a planned value (undefined: a deletion that found nothing live). */
export function presentPlannedValue(
  caller: Caller,
  plan: PlannedValue,
  outcome: ValueOutcome,
  /** When this call's changes were written (null: nothing changed). */
  writtenAt: Date | null,
  users: Users,
): ValueItem | undefined {
  const key = plan.element.key;
  if (!outcome) return undefined;
  if (!('stored' in outcome)) {
    // Written by this request.
    const row = outcome.change;
    return presentValue(
      {
        id: row.id,
        element_id: row.elementId,
        period_unit: row.periodUnit,
        timestamp: row.timestamp,
        value: row.value,
        original_value: row.originalValue,
        selected_unit_id: row.selectedUnitId,
        status: 'COMPLETED',
        user_id: caller.userId,
        recorded_at: writtenAt!,
        deleted_at: null,
      },
      key,
      users.get(caller.userId)!,
    );
  }
  const deletedAt = outcome.change ? writtenAt! : undefined;
  const userId = deletedAt ? caller.userId : outcome.stored.user_id;
  return presentValue(
    { ...outcome.stored, user_id: userId, deleted_at: deletedAt ?? outcome.stored.deleted_at },
    key,
    users.get(userId)!,
  );
}
