/** The apikeys module's front door: what other modules (and the composition root) may use. */
import { apiKeysRepository } from './apikeys.repository.ts';

export { apiKeysRoutes } from './apikeys.routes.ts';

/** What other modules may do with API keys. */
export const apiKeys = {
  /** Stores a new key (its hash only) for a user of the organization; answers its id, name and creation time. */
  create: apiKeysRepository.insert,
};
