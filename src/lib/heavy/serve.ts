import { parentPort } from 'node:worker_threads';
import {
  CANCELLED,
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

const cancelled = () => Object.assign(new Error('The caller went away'), { name: CANCELLED });

/** A running job on the worker's side: its output's credit and its input's parts. */
interface Running {
  /** Parts sent and not yet taken by the pool; who waits for room. */
  unacked: number;
  wake?: { resolve: () => void; reject: (e: Error) => void } | undefined;
  /** Input parts come and not yet taken by the task; whether the input is complete. */
  inbox: unknown[];
  ended: boolean;
  arrived?: (() => void) | undefined;
  cancelled: boolean;
  /** Aborted with `cancelled`: handed to the task. */
  abort: AbortController;
}

/**
 * The worker side of the heavy-work pool: runs the named tasks the pool sends, one at a time,
 * streams their parts back no more than `PART_WINDOW` ahead of what the pool has taken, and hands
 * a task its streamed input (`feed`) as it comes, telling the pool each part it took.
 * Call once in a worker thread's entry with the table of tasks it offers.
 */
export function serveHeavyTasks(tasks: Record<string, HeavyTask>): void {
  const port = parentPort;
  if (!port) throw new Error('serveHeavyTasks runs in a worker thread');
  const running = new Map<number, Running>();
  const post = (message: FromHeavyWorker) => port.postMessage(message);
  const arrive = (r: Running) => {
    const arrived = r.arrived;
    r.arrived = undefined;
    arrived?.();
  };
  port.on('message', (message: ToHeavyWorker) => {
    if (message.type !== 'job') {
      const r = running.get(message.id);
      if (!r) return;
      if (message.type === 'ack') {
        r.unacked -= message.count;
        if (r.unacked < PART_WINDOW && r.wake) {
          const wake = r.wake;
          r.wake = undefined;
          wake.resolve();
        }
      } else if (message.type === 'feed') {
        r.inbox.push(message.part);
        arrive(r);
      } else if (message.type === 'feed-end') {
        r.ended = true;
        arrive(r);
      } else {
        r.cancelled = true;
        r.abort.abort(cancelled());
        const wake = r.wake;
        r.wake = undefined;
        wake?.reject(cancelled());
        arrive(r);
      }
      return;
    }
    const { id, task, input } = message;
    const run = tasks[task];
    if (!run) {
      post({ type: 'failed', id, failure: { name: 'Error', message: `No heavy task named ${task}` } });
      return;
    }
    const r: Running = {
      unacked: 0,
      inbox: [],
      ended: false,
      cancelled: false,
      abort: new AbortController(),
    };
    running.set(id, r);
    const emit = async (part: unknown) => {
      if (r.cancelled) throw cancelled();
      post({ type: 'part', id, part });
      r.unacked++;
      if (r.unacked >= PART_WINDOW)
        await new Promise<void>((resolve, reject) => (r.wake = { resolve, reject }));
    };
    const feed: AsyncIterable<unknown> = {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (r.cancelled) throw cancelled();
          if (r.inbox.length > 0) {
            const part = r.inbox.shift();
            post({ type: 'took', id, count: 1 });
            yield part;
            continue;
          }
          if (r.ended) return;
          await new Promise<void>((resolve) => (r.arrived = resolve));
        }
      },
    };
    Promise.resolve()
      .then(() => run(input, emit, feed, r.abort.signal))
      .then(
        (result) => post({ type: 'done', id, result }),
        (error: unknown) => post({ type: 'failed', id, failure: serialize(error) }),
      )
      .finally(() => running.delete(id));
  });
}
