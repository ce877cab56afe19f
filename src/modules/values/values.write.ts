import type { Tx } from '../../db/client.ts';
import type { ValueStatus } from '../../db/schema/index.ts';
import { emitCompletedPeriods } from '../webhooks/index.ts';
import { valueChangesRepository as repo, type ValueChange } from './changes.repository.ts';
import { runGuards, type SlotGuard, type ValueSlot } from './element-types.ts';
import type { Snapshot } from './values.history.ts';

/** Who writes: the organization, and the person the values and their history name. */
export interface ValueAuthor {
  organizationId: string;
  userId: string;
}

/** The slot guards of the composition root and the slots (form, site, year, period) a write touches. */
export interface GuardedSlots {
  guards: readonly SlotGuard[];
  slots: readonly ValueSlot[];
}

/**
 * The writes of stored values, each with its history. Only `writeValues` makes one, after the slot
 * guards passed: whoever holds it may write the slots it was made for.
 */
export class ValueWrites {
  readonly #tx: Tx;
  readonly #who: ValueAuthor;

  constructor(tx: Tx, who: ValueAuthor) {
    this.#tx = tx;
    this.#who = who;
  }

  /** Takes every stripe lock of the organization's aggregates: a write over several (site, year). */
  lockAggregateStripes(): Promise<void> {
    return repo.lockAllAggregateStripes(this.#tx, this.#who.organizationId);
  }

  /** Writes new, changed and deleted values with their history; the time they were written. */
  apply(changes: ValueChange[]): Promise<Date> {
    return repo.applyChanges(this.#tx, this.#who.organizationId, this.#who.userId, changes);
  }

  /** Sets the number of values otherwise unchanged (an activity list whose results differ). */
  renumber(sums: { id: string; total: number | null }[]): Promise<void> {
    return repo.setNumericValues(this.#tx, this.#who.organizationId, sums);
  }

  /**
   * Sets the number of these ACTIVITY values to the sum of their activities again, after the
   * activities changed (a recalculation keeps the values themselves, their authors and statuses).
   */
  resum(valueIds: string[]): Promise<void> {
    return repo.resumValues(this.#tx, this.#who.organizationId, valueIds);
  }

  /**
   * An ACTIVITY value whose activity changed: the new list of inputs, COMPLETED again by the
   * writer, its submission touched, its number summed again, and an UPDATE in its history.
   */
  async relist(valueId: string, list: unknown, before: Snapshot): Promise<void> {
    const { organizationId: org, userId } = this.#who;
    await repo.rewriteValue(this.#tx, org, valueId, userId, list);
    await repo.resumValues(this.#tx, org, [valueId]);
    await repo.insertHistory(this.#tx, org, userId, [
      { valueId, action: 'UPDATE', before, after: { ...before, value: list, status: 'COMPLETED' } },
    ]);
  }
}

/**
 * The one writer of stored values (decision 199): runs the slot guards (period locks and any
 * other the composition root registers) on the slots a write touches, then hands the write its
 * `ValueWrites`. Submissions and imports (`storeBatch`), an activity's PATCH and a definition's
 * recalculation all write through it, in the caller's transaction. Periods the write completed
 * are announced (`period.completed`, decision 223) in the same transaction.
 */
export async function writeValues<T>(
  tx: Tx,
  who: ValueAuthor,
  guarded: GuardedSlots,
  write: (values: ValueWrites) => Promise<T>,
): Promise<T> {
  await runGuards(guarded.guards, tx, who.organizationId, guarded.slots);
  const result = await write(new ValueWrites(tx, who));
  await emitCompletedPeriods(tx, who.organizationId);
  return result;
}

/**
 * Reviews values (a single review or a bulk one): sets their status and records, per value, a
 * REVIEW in its history with the comment. A review changes no value, so no slot guard applies (a
 * locked period's values can still be reviewed, as before this writer). A rejection taken back
 * can complete a period again: announced as any write's (decision 223).
 */
export async function writeReviews(
  tx: Tx,
  who: ValueAuthor,
  values: readonly { id: string; before: Snapshot }[],
  status: ValueStatus,
  comment: string | null,
): Promise<void> {
  const { organizationId: org, userId } = who;
  await repo.setStatuses(
    tx,
    org,
    values.map((v) => v.id),
    status,
  );
  await repo.insertHistory(
    tx,
    org,
    userId,
    values.map((v) => ({
      valueId: v.id,
      action: 'REVIEW' as const,
      before: v.before,
      after: { ...v.before, status },
      comment,
    })),
  );
  await emitCompletedPeriods(tx, org);
}
