/** The form-locks module's front door: what other modules (and the composition root) may use. */
export { assertUnlocked, lockedActivities, lockedSlots } from './form-locks.guard.ts';
export { formLocksRoutes } from './form-locks.routes.ts';
