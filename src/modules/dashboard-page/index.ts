/** The dashboard-page module's front door: what other modules (and the composition root) may use. */
export { registerDashboardPage } from './dashboard-page.ts';
