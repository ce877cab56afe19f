import { availableParallelism } from 'node:os';
import { SandboxPool } from './pool.ts';

/** The process's one sandbox pool: its size, start, stop and load. */
let shared: SandboxPool | undefined;
let workers = Math.min(2, availableParallelism());

/** Sets the number of sandbox workers (SDCS_CALC_WORKERS); takes effect for a pool not yet started. */
export function configureSandboxWorkers(size: number): void {
  workers = size;
  if (shared && shared.size !== size) {
    const old = shared;
    shared = undefined;
    void old.shutdown();
  }
}

/** The process's sandbox pool (its workers start on demand). */
export function sandboxPool(): SandboxPool {
  shared ??= new SandboxPool(workers);
  return shared;
}

/** Starts the sandbox workers ahead of the first calculation (server start-up). */
export function warmSandbox(): Promise<void> {
  return sandboxPool().warm();
}

/** Stops the sandbox worker, e.g. when the server shuts down. */
export async function shutdownSandbox(): Promise<void> {
  await shared?.shutdown();
}

/** The sandbox's load, for metrics: worker threads started and calculations waiting for one. */
export function sandboxStats(): { workers: number; waiting: number } {
  return { workers: shared?.size ?? 0, waiting: shared?.waiting ?? 0 };
}
