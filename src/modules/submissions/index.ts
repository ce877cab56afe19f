/** The submissions module's front door: what other modules (and the composition root) may use. */

export type { PlanOptions } from './element-types.ts';
export {
  type Checked,
  type ElementInfo,
  type ElementTypeHandler,
  type ElementTypeHandlers,
  type PlannedValue,
  runGuards,
  type SlotGuard,
  type StoreContext,
  type SubmissionTarget,
  type TenantRun,
  type ValuesSession,
} from './element-types.ts';
export { snapshotOf } from './submissions.history.ts';
export { scheduleKeyCleanup } from './submissions.keys.ts';
export { submissionsQueueRoutes } from './submissions.queue.routes.ts';
export { submissionsRepository } from './submissions.repository.ts';
export { resolveTargets } from './submissions.resolve.ts';
export { submissionsRoutes } from './submissions.routes.ts';
export { ActivitySummary, type SubmitBody, type SubmitValue, type ValueItem } from './submissions.schemas.ts';
export { checkValue, checkValues, PLAIN_CHECKS, PLAIN_HANDLERS } from './submissions.values.ts';
export type { AttemptOutcome } from './values.attempts.ts';
export { attemptThenCompute, ComputeFirst, MAX_ATTEMPTS } from './values.attempts.ts';
export type { ValuesPipeline } from './values.pipeline.ts';
export { storeBatch } from './values.pipeline.ts';
export { submissionValuesRepository } from './values.repository.ts';
export type { ResolvedBatch, ResolvedEntry } from './values.resolve.ts';
export { dateOutsidePeriod, numberRuleProblem, type PeriodWindow, periodName } from './values.rules.ts';
export { ValuesSessions } from './values.sessions.ts';
