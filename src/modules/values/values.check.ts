import type { Caller } from '../../domain/caller.ts';
import { AppError, type Issue } from '../../domain/errors.ts';
import { runGuards, type TenantRun } from './element-types.ts';
import type { ValueCheck } from './values.check.schemas.ts';
import { findOutliers } from './values.outliers.ts';
import { guardedSlots, planIssues, type ValuesPipeline } from './values.pipeline.ts';
import { resolveValues } from './values.resolve.ts';
import type { SubmitBody } from './values.schemas.ts';
import { ValuesSessions } from './values.sessions.ts';

const indexOf = (path: string) => Number(/^values\.(\d+)/.exec(path)?.[1] ?? -1);

/**
 * POST /form-submissions/check (decision 160): every check a submission of `body` would meet,
 * with nothing stored. The body's form, site and year are resolved as a submission resolves them,
 * and what would refuse the whole request there refuses it here too (400 for an unknown form or
 * site or an inactive year, 403 for a site the caller cannot report for). Every value's problems
 * (type, rules, element, activity inputs, media, locks) come back as `invalid` issues; the
 * activities' calculations are not run (their inputs are checked, the sandbox is not started).
 * Reads only: no submission, value, history, activity or aggregate row is written.
 */
export async function checkValuesOf(
  pipeline: ValuesPipeline,
  run: TenantRun,
  caller: Caller,
  body: SubmitBody,
  signal: AbortSignal = new AbortController().signal,
): Promise<{ issues: ValueCheck[] }> {
  const sessions = new ValuesSessions(pipeline.handlers, {
    organizationId: caller.organizationId,
    caller,
    run,
    signal,
  });
  try {
    return await run(async (tx) => {
      const batch = await resolveValues(tx, pipeline.handlers, caller, [body]);
      const entry = batch.entries[0]!;
      const issues: Issue[] = await planIssues(tx, entry, sessions, 0);
      try {
        await runGuards(pipeline.guards, tx, caller.organizationId, guardedSlots(batch.entries));
      } catch (error) {
        // A guard refuses with a 400 listing the slots (a lock); anything else is not a value's problem.
        if (!(error instanceof AppError) || error.status !== 400) throw error;
        issues.push(...(error.issues ?? [{ message: error.message }]));
      }
      const [outliers] = await findOutliers(
        tx,
        caller.organizationId,
        batch.entries,
        batch.units ?? new Map(),
      );
      const found: ValueCheck[] = [
        ...issues.map((issue) => ({
          type: 'invalid' as const,
          path: issue.path ?? 'values',
          message: issue.message,
          // The documented code and params (decision 225): the app says the finding in its language.
          ...(issue.code ? { code: issue.code } : {}),
          ...(issue.params ? { params: issue.params } : {}),
        })),
        ...outliers!,
      ];
      return { issues: found.sort((a, b) => indexOf(a.path) - indexOf(b.path)) };
    });
  } finally {
    await sessions.close();
  }
}
