/** The members module's front door: what other modules (and the composition root) may use. */
export { memberPolicy } from './members.policy.ts';
export { membersRepository } from './members.repository.ts';
export { membersRoutes } from './members.routes.ts';
export {
  authorizeMemberSites,
  grantMessage,
  MEMBER_SITES_MESSAGE,
  requireRole,
  requireSites,
} from './members.service.ts';
