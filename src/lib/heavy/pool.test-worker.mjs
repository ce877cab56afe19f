// The tasks src/lib/heavy/pool.test.ts runs: tsx first (worker threads do not inherit the loader).
import { register } from 'tsx/esm/api';

register();
const { serveHeavyTasks } = await import('./serve.ts');

/** Holds the thread for `ms` (CPU-bound, as heavy work is). */
const spin = (ms) => {
  const end = Date.now() + ms;
  while (Date.now() < end);
};

serveHeavyTasks({
  spin: ({ ms, label }) => {
    spin(ms);
    return label;
  },
  parts: async ({ count }, emit) => {
    let sent = 0;
    for (let i = 0; i < count; i++) {
      await emit(i);
      sent++;
    }
    return sent;
  },
  refuse: () => {
    // What an AppError carries across (the fixture does not import the service's errors).
    throw Object.assign(new Error('Invalid input data'), {
      name: 'AppError',
      code: 'BAD_REQUEST',
      issues: [{ path: 'rows.3', message: 'rows.3 is wrong' }],
    });
  },
  crash: () => process.exit(3),
  /** Its streamed input, each part doubled. */
  echo: async (_input, emit, feed) => {
    let n = 0;
    for await (const part of feed) {
      await emit(part * 2);
      n++;
    }
    return n;
  },
  /** Parts without end, until its consumer goes away. */
  endless: async (_input, emit) => {
    for (let i = 0; ; i++) await emit(i);
  },
});
