/** The auth module's front door: what other modules (and the composition root) may use. */

export { accountBudget, checkAccountPassword, type PasswordCheckDeps } from './account-password.ts';
export {
  type AttemptBudget,
  attemptBudget,
  longestWait,
  WaitBeforeRetry,
  withRetryAfter,
} from './attempt-budget.ts';
export { authRoutes } from './auth.routes.ts';
export { credentialResolver, issueAccessToken } from './auth.service.ts';
export { ssoRoutes } from './sso.routes.ts';
export { passwordRefusal } from './sso.settings.ts';
