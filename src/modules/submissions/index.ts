/** The submissions module's front door: what other modules (and the composition root) may use. */
export {
  type Checked,
  type ElementInfo,
  type ElementTypeHandler,
  type ElementTypeHandlers,
  type PlannedValue,
  runGuards,
  type SlotGuard,
  type StoreContext,
  type Target,
  type TenantRun,
  type ValuesSession,
} from './element-types.ts';
export { snapshotOf } from './submissions.history.ts';
export { submissionsRepository } from './submissions.repository.ts';
export { submissionsRoutes } from './submissions.routes.ts';
export { ActivitySummary, type SubmitBody, type SubmitValue, type ValueItem } from './submissions.schemas.ts';
export { checkValues, PLAIN_CHECKS, PLAIN_HANDLERS } from './submissions.values.ts';
export { storeValueSets, type ValuesPipeline } from './values.pipeline.ts';
export { submissionValuesRepository } from './values.repository.ts';
