/**
 * The values module's front door: the values engine (element types, the pipeline that resolves,
 * checks and stores values, their history) and the one writer of stored values (decision 199).
 */

export type { PeriodWindow, PlanOptions } from './element-types.ts';
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
export type { AttemptOutcome } from './values.attempts.ts';
export { attemptThenCompute, ComputeFirst, MAX_ATTEMPTS } from './values.attempts.ts';
export { CheckAnswer, ValueCheck } from './values.check.schemas.ts';
export { checkValuesOf } from './values.check.ts';
export {
  liveValuesOf,
  lockValues,
  type Snapshot,
  snapshotOf,
  valueAuthors,
  valueHistory,
  visibleValue,
} from './values.history.ts';
export { findOutliers } from './values.outliers.ts';
export type { ValuesPipeline } from './values.pipeline.ts';
export { storeBatch } from './values.pipeline.ts';
export { checkValue, checkValues, PLAIN_CHECKS, PLAIN_HANDLERS } from './values.plain.ts';
export { presentValue } from './values.present.ts';
/** The submissions that count (live form, active form-site): a query the submissions resource lists from. */
export { visibleSubmissions } from './values.repository.ts';
export type { ResolvedBatch, ResolvedEntry } from './values.resolve.ts';
export { resolveValues } from './values.resolve.ts';
export { dateOutsidePeriod, numberRuleIssue, numberRuleProblem, periodName } from './values.rules.ts';
export {
  ActivitySummary,
  HistoryEntry,
  Submission,
  SubmitAnswer,
  SubmitBody,
  SubmitValue,
  ValueItem,
  ValueStatusSchema,
} from './values.schemas.ts';
export { ValuesSessions } from './values.sessions.ts';
export { resolveTargets } from './values.targets.ts';
export {
  type GuardedSlots,
  type ValueAuthor,
  type ValueWrites,
  writeReviews,
  writeValues,
} from './values.write.ts';
