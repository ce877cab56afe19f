/** The invitations module's front door: what other modules (and the composition root) may use. */
import type { Tx } from '../../db/client.ts';
import { invitationsRepository } from './invitations.repository.ts';

export { registerAcceptPage } from './accept-page.ts';
export { invitationsRoutes } from './invitations.routes.ts';

/** What other modules may do with invitations. */
export const invitations = {
  /**
   * Accepts the person's live invitation to the organization and makes the membership active,
   * in the caller's transaction; false when there is no live invitation (none, used or expired).
   * Single sign-on's first sign-in of an invited address uses it (given through the services).
   */
  async acceptFor(tx: Tx, organizationId: string, userId: string): Promise<boolean> {
    if (!(await invitationsRepository.claimFor(tx, organizationId, userId))) return false;
    await invitationsRepository.activateMembership(tx, organizationId, userId);
    return true;
  },
};
