/** The forms module's front door: what other modules (and the composition root) may use. */
import { formsRepository } from './forms.repository.ts';

export { formsRoutes } from './forms.routes.ts';

/** What other modules may read of forms. */
export const forms = {
  /** A form of the organization, or undefined; `lock` takes a row lock until the transaction ends. */
  find: formsRepository.find,
  /** The elements of these forms (deleted ones too when asked). */
  elements: formsRepository.elements,
  /** Activity definitions visible to the organization (its own and common ones), by id. */
  activityDefinitions: formsRepository.activityDefinitions,
};
