import { parentPort } from 'node:worker_threads';
import {
  type FromHeavyWorker,
  type HeavyTask,
  PART_WINDOW,
  type SerializedFailure,
  type ToHeavyWorker,
} from './protocol.ts';

/** What crosses back of an error a task raised: its answer's fields, never its stack. */
function serialize(error: unknown): SerializedFailure {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const e = error as Error & Partial<SerializedFailure>;
  return {
    name: e.name,
    message: e.message,
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(Array.isArray(e.issues) ? { issues: e.issues } : {}),
    ...(Array.isArray(e.validation) ? { validation: e.validation } : {}),
    ...(typeof e.validationContext === 'string' ? { validationContext: e.validationContext } : {}),
  };
}

/**
 * The worker side of the heavy-work pool: runs the named tasks the pool sends, one at a time,
 * and streams their parts back no more than `PART_WINDOW` ahead of what the pool has taken.
 * Call once in a worker thread's entry with the table of tasks it offers.
 */
export function serveHeavyTasks(tasks: Record<string, HeavyTask>): void {
  const port = parentPort;
  if (!port) throw new Error('serveHeavyTasks runs in a worker thread');
  /** Per running job: parts sent and not yet taken, and who waits for room. */
  const credit = new Map<number, { unacked: number; wake?: () => void }>();
  const post = (message: FromHeavyWorker) => port.postMessage(message);
  port.on('message', (message: ToHeavyWorker) => {
    if (message.type === 'ack') {
      const c = credit.get(message.id);
      if (!c) return;
      c.unacked -= message.count;
      if (c.unacked < PART_WINDOW && c.wake) {
        const wake = c.wake;
        c.wake = undefined;
        wake();
      }
      return;
    }
    const { id, task, input } = message;
    const run = tasks[task];
    if (!run) {
      post({ type: 'failed', id, failure: { name: 'Error', message: `No heavy task named ${task}` } });
      return;
    }
    const c: { unacked: number; wake?: (() => void) | undefined } = { unacked: 0 };
    credit.set(id, c);
    const emit = async (part: unknown) => {
      post({ type: 'part', id, part });
      c.unacked++;
      if (c.unacked >= PART_WINDOW) await new Promise<void>((resolve) => (c.wake = resolve));
    };
    Promise.resolve()
      .then(() => run(input, emit))
      .then(
        (result) => post({ type: 'done', id, result }),
        (error: unknown) => post({ type: 'failed', id, failure: serialize(error) }),
      )
      .finally(() => credit.delete(id));
  });
}
