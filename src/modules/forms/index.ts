/** The forms module's front door: what other modules (and the composition root) may use. */
export { formsRepository } from './forms.repository.ts';
export { formsRoutes } from './forms.routes.ts';
