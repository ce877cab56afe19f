import { FEED_WINDOW, type ToHeavyWorker } from './protocol.ts';

type Post = (message: ToHeavyWorker, transfer?: ArrayBuffer[]) => void;

/**
 * A job's streamed input on the pool's side (`HeavyStream.feed`): parts wait here until the job
 * runs, then go to its worker no more than `FEED_WINDOW` ahead of what the task has taken; the
 * caller's `push` resolves when there is room again, so a producer (rows read from the database)
 * goes no faster than the task that consumes them.
 */
export class JobFeed {
  #queue: { part: unknown; transfer: ArrayBuffer[] }[] = [];
  /** Parts posted to the worker and not yet taken by the task. */
  #out = 0;
  #ended = false;
  #endSent = false;
  #post: Post | undefined;
  #waiters: (() => void)[] = [];
  #closed: { reason: unknown } | undefined;

  constructor(private readonly id: number) {}

  /** The job runs on a worker: what waited goes out. */
  attach(post: Post): void {
    this.#post = post;
    this.#pump();
  }

  /** Sends a part (once the job runs), resolving when the task is no more than a window behind. */
  async push(part: unknown, transfer: ArrayBuffer[] = []): Promise<void> {
    if (this.#closed) throw this.#closed.reason;
    if (this.#ended) throw new Error('The input of this job was already ended');
    this.#queue.push({ part, transfer });
    this.#pump();
    while (!this.#closed && this.#queue.length + this.#out >= FEED_WINDOW)
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    const closed = this.#closed as { reason: unknown } | undefined;
    if (closed) throw closed.reason;
  }

  /** The input is complete (sent after the parts still waiting). */
  end(): void {
    this.#ended = true;
    this.#pump();
  }

  /** The task took `count` parts. */
  took(count: number): void {
    this.#out = Math.max(0, this.#out - count);
    this.#pump();
    this.#wake();
  }

  /** The job finished (or failed, or was refused): pushing raises `reason` from now on. */
  close(reason: unknown): void {
    this.#closed ??= { reason };
    this.#queue = [];
    this.#wake();
  }

  #pump(): void {
    const post = this.#post;
    if (!post || this.#closed) return;
    while (this.#queue.length > 0 && this.#out < FEED_WINDOW) {
      const { part, transfer } = this.#queue.shift()!;
      post({ type: 'feed', id: this.id, part }, transfer);
      this.#out++;
    }
    if (this.#ended && !this.#endSent && this.#queue.length === 0) {
      this.#endSent = true;
      post({ type: 'feed-end', id: this.id });
    }
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
