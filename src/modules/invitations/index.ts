/** The invitations module's front door: what other modules (and the composition root) may use. */
export { registerAcceptPage } from './accept-page.ts';
export { invitationsRoutes } from './invitations.routes.ts';
