/** The members module's front door: what other modules (and the composition root) may use. */
import { membersRepository } from './members.repository.ts';

export { memberPolicy } from './members.policy.ts';
export { membersRoutes } from './members.routes.ts';
export {
  authorizeMemberSites,
  grantMessage,
  MEMBER_SITES_MESSAGE,
  requireRole,
  requireSites,
} from './members.service.ts';

/** What other modules may do with memberships (an invitation makes a pending one). */
export const members = {
  /** One membership, locked until the end of the transaction; undefined when there is none. */
  lock: membersRepository.lock,
  /** The sites assigned to a member. */
  siteIdsOf: membersRepository.siteIdsOf,
  setRole: membersRepository.setRole,
  /** Adds a membership (active, or pending until an invitation is accepted). */
  add: membersRepository.insert,
  /** Makes the member's assigned sites exactly these. */
  replaceSites: membersRepository.replaceSites,
};
