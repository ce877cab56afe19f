import { type Database, isDatabaseUnavailable } from '../../db/client.ts';
import { pendingMigrations } from '../../db/migrate.ts';
import { AppError, type Issue } from '../../domain/errors.ts';
import { checkSyntax } from '../../sandbox/index.ts';

/** A cold start of the worker (QuickJS compiled anew) takes ~1 s on a busy machine: room for it. */
const SANDBOX_TIMEOUT_MS = 5_000;

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not answer in ${ms} ms`)), ms).unref(),
    ),
  ]);

/**
 * Readiness: the database answers, every migration of this version is applied, and the
 * calculation sandbox answers a trivial check. Any failure is a 503 naming each failed check.
 */
export async function checkReadiness(database: Database): Promise<void> {
  const issues: Issue[] = [];
  try {
    const pending = await pendingMigrations(database);
    if (pending.length)
      issues.push({ path: 'migrations', message: `migrations not applied: ${pending.join(', ')}` });
  } catch (error) {
    const reason = isDatabaseUnavailable(error)
      ? 'the database is unreachable'
      : 'the database did not answer';
    issues.push({ path: 'database', message: reason });
  }
  try {
    const problem = await withTimeout(checkSyntax('return 0'), SANDBOX_TIMEOUT_MS, 'the calculation sandbox');
    if (problem)
      issues.push({ path: 'sandbox', message: `the calculation sandbox is broken: ${problem.message}` });
  } catch (error) {
    issues.push({ path: 'sandbox', message: error instanceof Error ? error.message : String(error) });
  }
  if (issues.length) throw new AppError('SERVICE_UNAVAILABLE', 'The service is not ready', issues);
}
