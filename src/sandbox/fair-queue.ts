/**
 * Waiting work by queue (one per organization), taken in turns: each `take` serves the queue at
 * the front and moves it to the back, so one queue's backlog delays another's by one item per turn.
 */
export class FairQueue<T> {
  /** The Map's order is the turn order. */
  private readonly queues = new Map<string, T[]>();

  /** Items waiting, over all queues. */
  get size(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  /** Adds an item at the back of its queue (or at its front, for work sent again). */
  add(key: string, item: T, first = false): void {
    const queue = this.queues.get(key);
    if (!queue) this.queues.set(key, [item]);
    else if (first) queue.unshift(item);
    else queue.push(item);
  }

  /** The next item of the queue whose turn it is; undefined when nothing waits. */
  take(): T | undefined {
    const next = this.queues.entries().next();
    if (next.done) return undefined;
    const [key, queue] = next.value;
    const item = queue.shift();
    this.queues.delete(key);
    if (queue.length > 0) this.queues.set(key, queue);
    return item;
  }

  /** Removes and returns every waiting item. */
  drain(): T[] {
    const all = [...this.queues.values()].flat();
    this.queues.clear();
    return all;
  }
}
