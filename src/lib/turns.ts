/**
 * Cooperative request work (decision 0165): a loop over thousands of rows on the service's one
 * event loop calls `turns.due()` per row (or slice) and awaits `turns.give()` when it is due, so
 * that no request holds the loop for more than about `TURN_MS` at a time. What the loop computes
 * does not change, only when other requests get their turn in between.
 */
export const TURN_MS = 3;

/** A turn of the event loop: timers, I/O callbacks and other requests run before this resolves. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Turns {
  private since = performance.now();

  /** `signal`: work that is no longer wanted (its client went away) stops at its next turn. */
  constructor(
    private readonly budgetMs = TURN_MS,
    private readonly signal?: AbortSignal,
  ) {}

  /** Whether this work has had the loop for its budget since its last turn. */
  due(): boolean {
    return performance.now() - this.since >= this.budgetMs;
  }

  /** Gives the loop a turn, then starts a new budget (raises the signal's reason once it is aborted). */
  async give(): Promise<void> {
    await nextTurn();
    this.signal?.throwIfAborted();
    this.since = performance.now();
  }

  /** Gives the loop a turn if one is due (call it between slices of work). */
  async maybe(): Promise<void> {
    if (this.due()) await this.give();
  }
}
