/**
 * The service's values pipeline (handlers per element type and slot guards), built the same way by
 * the composition root (`app.ts`) and by a heavy worker that runs a large import on its own
 * connection (src/heavy-worker.ts, decision 0233), so that both write through the same guards.
 */
import { activityElementHandler } from './modules/activities/index.ts';
import { assertUnlocked } from './modules/form-locks/index.ts';
import { fileElementHandler } from './modules/media/index.ts';
import { PLAIN_HANDLERS, type SlotGuard, type ValuesPipeline } from './modules/values/index.ts';

/**
 * Element types as handlers: the plain types, ACTIVITY (activities module), FILE (media module:
 * only uploaded media of the organization). Slot guards run before any write that changes values
 * or activities: `extraGuards` (tests), then period locks (form-locks module).
 */
export function servicePipeline(calcRequestBudgetMs: number, extraGuards: readonly SlotGuard[] = []): ValuesPipeline {
  return {
    handlers: {
      ...PLAIN_HANDLERS,
      ACTIVITY: activityElementHandler({ budgetMs: calcRequestBudgetMs }),
      FILE: fileElementHandler(),
    },
    guards: [...extraGuards, assertUnlocked],
  };
}
